import type { JSX } from "preact";
import { notifyPermission, notifyWanted, setNotify } from "./attention.js";

/** The page's own setting for notifications: asking the browser happens only when the user turns it on here. */
export function NotifySetting(): JSX.Element {
  const permission = notifyPermission.value;
  return (
    <div class="field">
      <label class="settings-switch" for="settings-notify">
        <input
          id="settings-notify"
          type="checkbox"
          role="switch"
          checked={notifyWanted.value}
          disabled={permission === "unsupported"}
          aria-describedby="settings-notify-hint"
          onChange={(e) => void setNotify(e.currentTarget.checked)}
        />
        <span>Notify me when a background thread finishes or waits on me</span>
      </label>
      <p id="settings-notify-hint" class="settings-note">
        {permission === "unsupported"
          ? "This browser has no notifications."
          : permission === "denied"
            ? "The browser blocks notifications from this page: allow them in its site settings, then turn this on."
            : "Off until you turn it on; the browser then asks once."}
      </p>
    </div>
  );
}
