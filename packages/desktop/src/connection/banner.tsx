import type { JSX } from "preact";
import { connectionState } from "./connection.js";

/** Says why the page is not live: reconnecting after the server went away, or refused when the listener does not hold the page's token. */
export function ConnectionBanner(): JSX.Element | null {
  switch (connectionState.value) {
    case "open":
      return null;
    case "connecting":
      return (
        <div class="banner" role="status">
          Connecting to the server…
        </div>
      );
    case "reconnecting":
      return (
        <div class="banner banner-warning" role="status">
          The server went away. Reconnecting… Your threads are saved; nothing you see is lost.
        </div>
      );
    case "refused":
      return (
        <div class="banner banner-error" role="alert">
          The server on this port does not hold this page's token: it was restarted with a new one, or another program took the port. The token was not sent,
          and this tab has forgotten it: open the address <code>knightcode desktop</code> printed.
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
