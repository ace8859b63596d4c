import { Type } from "typebox";
import { Closed } from "./common.js";
import { notification, request } from "./define.js";

const Provider = Type.String({ minLength: 1, maxLength: 128, description: "A provider name as model/list shows it, such as openai or anthropic." });
const LoginId = Type.String({ minLength: 1, maxLength: 128, description: "The loginId account/login/start answered." });

export const AccountKind = Type.Union([Type.Literal("apiKey"), Type.Literal("oauth"), Type.Literal("env")], {
  $id: "AccountKind",
  description: "apiKey and oauth: stored in <agentDir>/auth.json; env: a key found in the server's environment.",
});

export const Account = Type.Object(
  {
    provider: Type.String(),
    kind: AccountKind,
  },
  { ...Closed, $id: "Account", description: "A provider with a usable credential; the credential itself is never sent." },
);

const Accounts = Type.Array(Account, {
  description: "One per provider, sorted by provider: the credential in effect (a stored one wins over the environment).",
});

export const LoginOutcome = Type.Object(
  {
    loginId: Type.String({ description: "The loginId account/login/start answered." }),
    provider: Type.String({ description: "The provider the login was for." }),
    outcome: Type.Union([Type.Literal("completed"), Type.Literal("failed"), Type.Literal("cancelled")]),
    message: Type.Optional(Type.String({ description: "Why a login failed, in the server's own words; never a provider's reply." })),
  },
  { ...Closed, $id: "LoginOutcome", description: "How an OAuth login that answered a loginId ended." },
);

export const accounts = {
  clientRequests: {
    "account/read": request({
      params: Type.Object({}, Closed),
      result: Type.Object({ accounts: Accounts }, Closed),
      doc: "The providers that have a credential: stored API keys and OAuth logins, and keys in the server's environment. Never a secret. A corrupt auth.json is internal.",
    }),
    "account/login/start": request({
      params: Type.Object(
        {
          provider: Provider,
          apiKey: Type.Optional(
            Type.String({
              minLength: 1,
              maxLength: 4096,
              pattern: "^[!-~]+$",
              description:
                "Stored at once. Visible ASCII only: no whitespace, line breaks or control characters. Without it, the provider's OAuth login starts.",
            }),
          ),
        },
        Closed,
      ),
      result: Type.Union([
        Type.Object(
          { kind: Type.Literal("apiKey", { description: "apiKey: the key was stored; oauth: a browser login started." }) },
          { ...Closed, description: "The key is stored; account/updated was sent." },
        ),
        Type.Object(
          {
            kind: Type.Literal("oauth"),
            loginId: Type.String({ description: "Names the login for account/login/cancel and in account/updated's login." }),
            url: Type.String({ description: "The page for the user to open in a browser." }),
            instructions: Type.Optional(Type.String({ description: "What to do on that page, for a device-code login (the code to enter)." })),
          },
          { ...Closed, description: "The login is pending; account/updated with login tells how it ended." },
        ),
      ]),
      doc: "With apiKey, stores the key for the provider (one model/list knows) in the agent dir's auth.json. Without it, starts the provider's OAuth login and answers as soon as its URL is known; a login already pending for the provider is cancelled first. An unknown provider, or one without OAuth login when apiKey is absent, is invalidParams; a corrupt auth.json is internal and left as it was.",
    }),
    "account/login/cancel": request({
      params: Type.Object({ loginId: LoginId }, Closed),
      result: Type.Object({ cancelled: Type.Boolean({ description: "False: unknown or already ended." }) }, Closed),
      doc: "Stops a pending OAuth login: its local callback server is closed and nothing is saved. Answers once the login has stopped.",
    }),
    "account/logout": request({
      params: Type.Object({ provider: Provider }, Closed),
      result: Type.Object(
        { removed: Type.Boolean({ description: "False: auth.json held nothing for the provider (a key in the environment stays)." }) },
        Closed,
      ),
      doc: "Removes the provider's stored credential from auth.json. A provider the server does not know and auth.json does not hold is invalidParams.",
    }),
  },
  serverNotifications: {
    "account/updated": notification({
      params: Type.Object(
        {
          accounts: Accounts,
          login: Type.Optional(LoginOutcome),
        },
        Closed,
      ),
      doc: "A credential was stored or removed, or an OAuth login ended (login); to every connection. accounts is what account/read answers.",
    }),
  },
} as const;
