import type { JSX } from "preact";
import { connectionState } from "./connection.js";

/** Says why the page is not live: reconnecting after the server went away, or refused after a restart with a new token. */
export function ConnectionBanner(): JSX.Element | null {
  switch (connectionState.value) {
    case "open":
      return null;
    case "connecting":
      return <div class="banner" role="status">Connecting to the server…</div>;
    case "reconnecting":
      return (
        <div class="banner banner-warning" role="status">
          The server went away. Reconnecting… Your threads are saved; nothing you see is lost.
        </div>
      );
    case "refused":
      return (
        <div class="banner banner-error" role="alert">
          The server refused this page's token. It was probably restarted: open the address it printed, which carries the new token.
        </div>
      );
    case "closed":
      return (
        <div class="banner banner-error" role="alert">
          Disconnected from the server. Start <code>knightcode desktop</code> again and open the address it prints.
        </div>
      );
  }
}
