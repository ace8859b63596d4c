import type { JSX } from "preact";
import { useEffect, useState } from "preact/hooks";
import type { Account } from "@knightcode/app-server-protocol";
import { reportError, toast } from "../../state/toasts.js";
import { confirmAction } from "../../ui/modal.js";
import { Button } from "../../ui/button.js";
import { useLoad } from "./load.js";
import { LoadGate, Section } from "./parts.js";
import { settings } from "./store.js";

const KIND_TEXT: Record<Account["kind"], string> = { apiKey: "stored API key", oauth: "signed in", env: "key in the server's environment" };

interface PendingLogin {
  loginId: string;
  provider: string;
  url: string;
  instructions?: string;
}

/** The providers with credentials (never a secret), an API key form that never shows the key again, and OAuth sign-in. */
export function Accounts({ providers }: { providers: string[] }): JSX.Element {
  const accounts = useLoad(() => settings.readAccounts(), []);
  const [login, setLogin] = useState<PendingLogin | undefined>(undefined);
  useEffect(
    () =>
      settings.onAccountUpdated((update) => {
        accounts.reload();
        const ended = update.login;
        if (!ended) return;
        setLogin((current) => (current?.loginId === ended.loginId ? undefined : current));
        if (ended.outcome === "failed") toast(`Signing in to ${ended.provider} failed${ended.message ? `: ${ended.message}` : ""}`, "error");
        else if (ended.outcome === "completed") toast(`Signed in to ${ended.provider}`, "success");
      }),
    [],
  );

  const logout = async (provider: string) => {
    const yes = await confirmAction({
      title: `Remove the ${provider} credential?`,
      body: `The stored credential for ${provider} is deleted from auth.json. A key in the server's environment stays in force.`,
      confirm: "Remove",
      danger: true,
    });
    if (!yes) return;
    try {
      const removed = await settings.logout(provider);
      toast(removed ? `${provider} credential removed` : `Nothing stored for ${provider}`, removed ? "success" : "info");
    } catch (error) {
      reportError(error, `Removing the ${provider} credential`);
    } finally {
      accounts.reload();
    }
  };

  const signIn = async (provider: string) => {
    try {
      const answer = await settings.startLogin(provider);
      if (answer.kind === "oauth")
        setLogin({ loginId: answer.loginId, provider, url: answer.url, ...(answer.instructions ? { instructions: answer.instructions } : {}) });
    } catch (error) {
      reportError(error, `Signing in to ${provider}`);
    }
  };

  const cancel = async (pending: PendingLogin) => {
    try {
      await settings.cancelLogin(pending.loginId);
    } catch (error) {
      reportError(error, "Cancelling the sign-in");
    } finally {
      setLogin(undefined);
    }
  };

  return (
    <Section title="Accounts">
      <LoadGate loaded={accounts} what="the accounts">
        {({ accounts: list }) =>
          list.length === 0 ? (
            <p class="settings-note">No provider has a credential yet.</p>
          ) : (
            <ul class="settings-list" aria-label="Accounts">
              {list.map((a) => (
                <li class="settings-row" data-provider={a.provider}>
                  <div class="settings-row-main">
                    <h3 class="settings-row-title">{a.provider}</h3>
                    <span class="badge">{KIND_TEXT[a.kind]}</span>
                    {a.kind !== "env" && (
                      <Button class="btn-small" aria-label={`Remove the ${a.provider} credential`} onClick={() => void logout(a.provider)}>
                        Remove
                      </Button>
                    )}
                  </div>
                </li>
              ))}
            </ul>
          )
        }
      </LoadGate>
      {login && (
        <div class="settings-login" role="status">
          <p>
            Finish signing in to {login.provider} at{" "}
            {webAddress(login.url) ? (
              <a href={login.url} target="_blank" rel="noreferrer noopener">
                {login.url}
              </a>
            ) : (
              <code>{login.url}</code>
            )}
          </p>
          {login.instructions && <p>{login.instructions}</p>}
          <Button onClick={() => void cancel(login)}>Cancel sign-in</Button>
        </div>
      )}
      {providers.length > 0 && <KeyForm providers={providers} onSignIn={signIn} onStored={accounts.reload} />}
    </Section>
  );
}

function KeyForm({ providers, onSignIn, onStored }: { providers: string[]; onSignIn: (provider: string) => Promise<void>; onStored: () => void }): JSX.Element {
  const [provider, setProvider] = useState(providers[0]!);
  const [key, setKey] = useState("");
  const chosen = providers.includes(provider) ? provider : providers[0]!;
  const submit = async (event: Event) => {
    event.preventDefault();
    if (!key) return;
    try {
      await settings.startLogin(chosen, key);
      toast(`Key stored for ${chosen}`, "success");
      onStored();
    } catch (error) {
      reportError(error, `Storing the ${chosen} key`);
    } finally {
      // The key leaves the page as soon as it is sent, whatever the answer.
      setKey("");
    }
  };
  return (
    <form class="settings-key-form" onSubmit={submit}>
      <div class="field">
        <label for="account-provider">Provider</label>
        <select id="account-provider" value={chosen} onChange={(e) => setProvider(e.currentTarget.value)}>
          {providers.map((p) => (
            <option value={p}>{p}</option>
          ))}
        </select>
      </div>
      <div class="field">
        <label for="account-key">API key</label>
        <input id="account-key" type="password" autocomplete="off" spellcheck={false} value={key} onInput={(e) => setKey(e.currentTarget.value)} />
      </div>
      <div class="settings-actions">
        <Button type="submit" variant="primary" disabled={!key}>
          Save key
        </Button>
        <Button onClick={() => void onSignIn(chosen)}>Sign in with browser</Button>
      </div>
    </form>
  );
}

/** Only a web address becomes a link: a `javascript:` or `data:` one from a provider would run in this page. */
function webAddress(url: string): boolean {
  try {
    const protocol = new URL(url).protocol;
    return protocol === "https:" || protocol === "http:";
  } catch {
    return false;
  }
}

/** The Accounts tab: which providers have credentials, and a key or sign-in for any provider model/list knows. */
export function AccountsTab(): JSX.Element {
  const models = useLoad(() => settings.listModels(), []);
  const providers = [...new Set((models.data?.models ?? []).map((m) => m.provider))].sort();
  return <Accounts providers={providers} />;
}
