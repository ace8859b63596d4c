import type { JSX } from "preact";
import { ConnectionBanner } from "./connection/banner.js";
import { Palette } from "./features/palette/palette.js";
import { Sidebar } from "./features/sidebar/sidebar.js";
import { StartScreen } from "./features/sidebar/start-screen.js";
import { SettingsScreen } from "./features/settings/settings.js";
import { activeThreadId, screen } from "./state/app-state.js";
import { ThreadScreen } from "./thread-screen.js";
import { ConfirmHost } from "./ui/modal.js";
import { Toasts } from "./ui/toasts.js";

export function App(): JSX.Element {
  const current = screen.value;
  const threadId = activeThreadId.value;
  return (
    <div class="app">
      <a class="skip-link" href="#main">
        Skip to the conversation
      </a>
      <Sidebar />
      <main id="main" class="main" tabIndex={-1}>
        <ConnectionBanner />
        {current.kind === "settings" ? (
          <SettingsScreen tab={current.tab ?? "general"} />
        ) : threadId ? (
          <ThreadScreen key={threadId} threadId={threadId} />
        ) : (
          <StartScreen />
        )}
      </main>
      <Toasts />
      <ConfirmHost />
      <Palette />
    </div>
  );
}
