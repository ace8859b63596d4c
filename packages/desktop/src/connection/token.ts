const KEY = "knightcode.token";
const PROJECT_KEY = "knightcode.serverProject";

/**
 * The token arrives in the URL's fragment, which a browser never sends to a
 * server. It moves to this tab's session storage and leaves the address bar,
 * so a reload keeps working and a shared screenshot or bookmark carries none.
 */
export function takeToken(): string | undefined {
  const params = new URLSearchParams(location.hash.slice(1));
  const token = params.get("token");
  // `knightcode desktop` names the folder it was started in beside the token: the first screen's project.
  const project = params.get("project");
  if (project) sessionStorage.setItem(PROJECT_KEY, project);
  if (token) {
    sessionStorage.setItem(KEY, token);
    history.replaceState(null, "", location.pathname + location.search);
    return token;
  }
  return sessionStorage.getItem(KEY) ?? undefined;
}

/** The folder the server was started in, as its printed address named it. */
export function serverProject(): string | undefined {
  return sessionStorage.getItem(PROJECT_KEY) ?? undefined;
}

/**
 * The tab keeps the token only while a listener that proved it holds the
 * same token is connected. A reload while the server is away could load
 * another user's page from the same port (the page's origin), which would
 * read whatever the tab kept for that origin.
 */
export function forgetToken(): void {
  sessionStorage.removeItem(KEY);
}

/** Back in the tab once the listener proved itself again. */
export function keepToken(token: string): void {
  sessionStorage.setItem(KEY, token);
}
