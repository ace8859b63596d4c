import { render } from "preact";
import "./styles/base.css";
import { App } from "./app.js";
import { Connection, connectionState, setConnection } from "./connection/connection.js";
import { takeToken } from "./connection/token.js";
import { installRequestHandlers } from "./features/requests/requests.js";
import { watchWorkspaceProgress } from "./features/workspace/panel.js";
import { renderView, watchExtensionUi } from "./features/extension-ui/extension-ui.js";
import { watchThreadList } from "./features/sidebar/sidebar.js";
import { watchAttention } from "./features/attention/attention.js";
import { setViewRenderer, watchTranscripts } from "./features/transcript/transcript.js";
import { watchAddress, watchTheme } from "./state/app-state.js";
import { watchOpenThreads } from "./state/open-threads.js";
import { watchTerminals } from "./features/terminal/model.js";

const root = document.getElementById("root")!;
watchTheme();

async function start(): Promise<void> {
  const token = takeToken();
  if (!token) {
    render(
      <div class="empty-state" role="alert">
        <h1>KnightCode</h1>
        <p>
          This page needs the address <code>knightcode desktop</code> printed, with its <code>#token=</code> part.
        </p>
      </div>,
      root,
    );
    return;
  }
  try {
    setConnection(await Connection.open(token));
  } catch (error) {
    connectionState.value = "refused";
    render(
      <div class="empty-state" role="alert">
        <h1>KnightCode</h1>
        <p>Cannot connect: {error instanceof Error ? error.message : String(error)}</p>
        <p>
          Open the address <code>knightcode desktop</code> printed when it started.
        </p>
      </div>,
      root,
    );
    return;
  }
  // The thread list's first page is asked for first, before anything else and before the first render,
  // so the sidebar's rows are not held up behind other requests or the first paint.
  watchThreadList();
  watchAttention();
  // Handlers before the first render, so a request the server asks at once finds one.
  installRequestHandlers();
  watchOpenThreads();
  watchTranscripts();
  watchTerminals();
  watchExtensionUi();
  // From the start, so the setup log of a worktree made before the panel first opens is kept.
  watchWorkspaceProgress();
  // Views on tool calls and extension messages are drawn by the extension-UI feature, read-only.
  setViewRenderer((view, { threadId }) => renderView(view, { threadId }));
  watchAddress();
  render(<App />, root);
  document.documentElement.dataset.ready = "true";
}

void start();
