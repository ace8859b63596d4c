// Generated from src/settings.ts by packages/schema/scripts/generate.mjs; do not edit.
// The schemas as plain data: the code that checks files at run time loads no TypeBox.
import type { Schema } from "../validate.js";

export const SETTINGS_SCHEMA: Schema = {
  "type": "object",
  "required": [
    "sessionDir",
    "defaultProvider",
    "defaultModel",
    "defaultThinkingLevel",
    "defaultApprovalMode",
    "theme",
    "retry",
    "compaction",
    "defaultTools",
    "extensions",
    "extensionHookTimeoutMs",
    "skills",
    "prompts",
    "themes",
    "worktrees",
    "interruptGraceMs",
    "shellPath",
    "sandbox",
    "requests",
    "subagents",
    "terminals",
    "shellEnv"
  ],
  "properties": {
    "sessionDir": {
      "anyOf": [
        {
          "type": "string",
          "minLength": 1
        },
        {
          "type": "null"
        }
      ],
      "description": "Folder for session files when neither `--session-dir` nor `KNIGHTCODE_CODING_AGENT_SESSION_DIR` is given. `null` keeps one folder per project under `<agentDir>/sessions/`. Only the global value counts: a project cannot move where sessions are kept.",
      "default": null
    },
    "defaultProvider": {
      "anyOf": [
        {
          "type": "string",
          "minLength": 1
        },
        {
          "type": "null"
        }
      ],
      "description": "Provider of the model a new thread starts with. `null` lets KnightCode pick the first usable model.",
      "default": null
    },
    "defaultModel": {
      "anyOf": [
        {
          "type": "string",
          "minLength": 1
        },
        {
          "type": "null"
        }
      ],
      "description": "Model id a new thread starts with, looked up in `defaultProvider`.",
      "default": null
    },
    "defaultThinkingLevel": {
      "anyOf": [
        {
          "type": "string",
          "const": "off"
        },
        {
          "type": "string",
          "const": "minimal"
        },
        {
          "type": "string",
          "const": "low"
        },
        {
          "type": "string",
          "const": "medium"
        },
        {
          "type": "string",
          "const": "high"
        },
        {
          "type": "string",
          "const": "xhigh"
        }
      ],
      "description": "Reasoning effort of a new thread whose model can reason.",
      "default": "medium"
    },
    "defaultApprovalMode": {
      "anyOf": [
        {
          "type": "string",
          "const": "ask"
        },
        {
          "type": "string",
          "const": "autoEdit"
        },
        {
          "type": "string",
          "const": "fullAccess"
        }
      ],
      "description": "Approval mode of a new thread: ask before edits and commands, accept file edits without asking, or run everything without asking.",
      "default": "ask"
    },
    "theme": {
      "type": "string",
      "minLength": 1,
      "description": "Name of the theme clients should use.",
      "default": "dark"
    },
    "retry": {
      "type": "object",
      "required": [
        "provider"
      ],
      "properties": {
        "provider": {
          "type": "object",
          "required": [
            "enabled",
            "maxRetries",
            "baseDelayMs",
            "maxRetryDelayMs",
            "streamIdleTimeoutMs"
          ],
          "properties": {
            "enabled": {
              "type": "boolean",
              "description": "Retry a model request that failed with a passing error (overload, rate limit, dropped connection).",
              "default": true
            },
            "maxRetries": {
              "type": "integer",
              "minimum": 0,
              "maximum": 9007199254740991,
              "description": "How many times one request is retried before the turn fails.",
              "default": 3
            },
            "baseDelayMs": {
              "type": "integer",
              "minimum": 0,
              "maximum": 9007199254740991,
              "description": "Wait before the first retry, in milliseconds; each later retry waits twice as long as the one before.",
              "default": 2000
            },
            "maxRetryDelayMs": {
              "type": "integer",
              "minimum": 0,
              "maximum": 9007199254740991,
              "description": "Longest single wait. When a provider asks to wait longer than this, the request fails rather than waiting.",
              "default": 60000
            },
            "streamIdleTimeoutMs": {
              "type": "integer",
              "minimum": 0,
              "maximum": 9007199254740991,
              "description": "A model reply that sends nothing for this long is treated as a network failure and retried like one.",
              "default": 300000
            }
          }
        }
      }
    },
    "compaction": {
      "type": "object",
      "required": [
        "enabled",
        "reserveTokens",
        "keepRecentTokens"
      ],
      "properties": {
        "enabled": {
          "type": "boolean",
          "description": "Summarize older history automatically when the context window fills up.",
          "default": true
        },
        "reserveTokens": {
          "type": "integer",
          "minimum": 0,
          "maximum": 9007199254740991,
          "description": "Tokens kept free in the context window for the model's reply; compaction starts when less than this remains.",
          "default": 16384
        },
        "keepRecentTokens": {
          "type": "integer",
          "minimum": 0,
          "maximum": 9007199254740991,
          "description": "About how many tokens of the latest history compaction keeps word for word.",
          "default": 20000
        }
      }
    },
    "defaultTools": {
      "type": "array",
      "items": {
        "type": "string",
        "pattern": "^[+-]?[^\\s+-]\\S*$"
      },
      "description": "Tools a new thread registers. Plain names choose the set outright; `\"+name\"` adds a tool to it and `\"-name\"` removes one. With no plain name, the set starts from the built-in `read`, `bash`, `edit`, `write`.",
      "default": [],
      "title": "array of tool patterns",
      "expected": "an array of tool names, each optionally prefixed with \"+\" or \"-\""
    },
    "extensions": {
      "type": "array",
      "items": {
        "type": "string",
        "pattern": "^[+-]?[^+\\-\\u0000][^\\u0000]*$"
      },
      "description": "Extension files or folders to load, besides those found in the usual places.",
      "default": [],
      "title": "array of path patterns",
      "expected": "an array of paths, each optionally prefixed with \"+\" or \"-\""
    },
    "extensionHookTimeoutMs": {
      "type": "integer",
      "minimum": 0,
      "maximum": 9007199254740991,
      "description": "How long one extension event handler may run, in milliseconds. A handler still running then is abandoned with a warning and the turn goes on; a `tool_call` handler's call is blocked (see [extensions](extensions.md#time-limits-and-failures)).",
      "default": 30000
    },
    "skills": {
      "type": "array",
      "items": {
        "type": "string",
        "pattern": "^[+-]?[^+\\-\\u0000][^\\u0000]*$"
      },
      "description": "Skill files or folders to load.",
      "default": [],
      "title": "array of path patterns",
      "expected": "an array of paths, each optionally prefixed with \"+\" or \"-\""
    },
    "prompts": {
      "type": "array",
      "items": {
        "type": "string",
        "pattern": "^[+-]?[^+\\-\\u0000][^\\u0000]*$"
      },
      "description": "Prompt template files or folders to load.",
      "default": [],
      "title": "array of path patterns",
      "expected": "an array of paths, each optionally prefixed with \"+\" or \"-\""
    },
    "themes": {
      "type": "array",
      "items": {
        "type": "string",
        "pattern": "^[+-]?[^+\\-\\u0000][^\\u0000]*$"
      },
      "description": "Theme files or folders to load.",
      "default": [],
      "title": "array of path patterns",
      "expected": "an array of paths, each optionally prefixed with \"+\" or \"-\""
    },
    "worktrees": {
      "type": "object",
      "required": [
        "root",
        "keep",
        "branchPrefix"
      ],
      "properties": {
        "root": {
          "anyOf": [
            {
              "type": "string",
              "minLength": 1
            },
            {
              "type": "null"
            }
          ],
          "description": "Folder that holds managed worktrees. `null` means `<agentDir>/worktrees`.",
          "default": null
        },
        "keep": {
          "type": "integer",
          "minimum": 0,
          "maximum": 9007199254740991,
          "description": "How many managed worktrees are kept; past that, the least recently used are deleted after a snapshot.",
          "default": 15
        },
        "branchPrefix": {
          "type": "string",
          "pattern": "^(?!-)(?!.*\\.\\.)(?!.*@\\{)[^\\s~^:?*\\[\\\\]*$",
          "description": "Start of the branch name a handoff creates when the worktree has no branch of its own.",
          "default": "knightcode/",
          "expected": "a string usable at the start of a git branch name"
        }
      }
    },
    "interruptGraceMs": {
      "type": "integer",
      "minimum": 0,
      "maximum": 9007199254740991,
      "description": "After a turn is stopped (an interrupt, an unload, a fault), how long a tool or extension hook that ignores the stop may hold it. Then the turn ends without it, its call is saved as failed, and the next turn runs on a fresh agent. See [faults](faults.md).",
      "default": 5000
    },
    "shellPath": {
      "anyOf": [
        {
          "type": "string",
          "minLength": 1
        },
        {
          "type": "null"
        }
      ],
      "description": "Shell the `bash` tool runs commands with. `null` lets the tool find bash itself.",
      "default": null
    },
    "sandbox": {
      "type": "object",
      "required": [
        "mode",
        "network",
        "required"
      ],
      "properties": {
        "mode": {
          "anyOf": [
            {
              "type": "string",
              "const": "workspace"
            },
            {
              "type": "string",
              "const": "off"
            }
          ],
          "description": "How the commands a thread starts for the model run outside `fullAccess`: `\"workspace\"` in the OS sandbox (writes only in the thread's folder and a private temporary folder, the agent folder hidden, no network), `\"off\"` without it, under the approval rules alone. Global settings only: a project's value is ignored, with a warning. See [the sandbox](sandbox.md).",
          "default": "workspace"
        },
        "network": {
          "type": "boolean",
          "description": "Whether sandboxed commands may use the network. Without it, a command asks for the network (`bash` with `network: true`) through an approval. Global settings only.",
          "default": false
        },
        "required": {
          "type": "boolean",
          "description": "When the sandbox cannot run on this machine: `false` runs sandboxed commands under the approval rules alone, with a warning when a thread loads; `true` refuses them. Global settings only.",
          "default": false
        }
      }
    },
    "requests": {
      "type": "object",
      "required": [
        "holdSeconds"
      ],
      "properties": {
        "holdSeconds": {
          "type": "integer",
          "minimum": 0,
          "maximum": 86400,
          "title": "integer 0..86400",
          "expected": "an integer from 0 to 86400",
          "description": "How long, in seconds, a request (an approval, `ask_user`'s questions, a dialog, a plan review) stays pending when its last subscriber leaves and that client opted in with `holdRequests`; the thread's next subscriber is asked. Past it the request is cancelled as unattended. `0` cancels at once. Global settings only. See [the protocol](protocol.md#requests-that-wait-for-a-person).",
          "default": 600
        }
      }
    },
    "subagents": {
      "type": "object",
      "required": [
        "maxPerThread",
        "maxRunning"
      ],
      "properties": {
        "maxPerThread": {
          "type": "integer",
          "minimum": 0,
          "maximum": 256,
          "title": "integer 0..256",
          "expected": "an integer from 0 to 256",
          "description": "How many sub-agents one thread's model may start (`agent_start`) while the thread stays loaded; past it the call fails and says so. `0` leaves threads without sub-agents. See [sub-agents](subagents.md).",
          "default": 16
        },
        "maxRunning": {
          "type": "integer",
          "minimum": 1,
          "maximum": 256,
          "title": "integer 1..256",
          "expected": "an integer from 1 to 256",
          "description": "How many sub-agents may work at the same time in the whole server; a start past it fails and says so. Global settings only.",
          "default": 8
        }
      }
    },
    "terminals": {
      "type": "object",
      "required": [
        "maxPerThread",
        "maxOutputBytes"
      ],
      "properties": {
        "maxPerThread": {
          "type": "integer",
          "minimum": 0,
          "maximum": 64,
          "title": "integer 0..64",
          "expected": "an integer from 0 to 64",
          "description": "How many commands a client runs with `command/exec` may run at the same time in one thread; past it `command/exec` is refused with `invalidParams`. `0` turns `command/exec` off. Global settings only. See [terminals](terminals.md).",
          "default": 8
        },
        "maxOutputBytes": {
          "type": "integer",
          "minimum": 1024,
          "maximum": 1073741824,
          "title": "integer 1024..1073741824",
          "expected": "an integer from 1024 to 1073741824",
          "description": "How many bytes of output (stdout and stderr together, or the terminal's) one `command/exec` process may send; at the cap its output is cut there, the process is stopped and `command/exec/exited` says `truncated: true`. Global settings only. See [terminals](terminals.md#output).",
          "default": 16777216
        }
      }
    },
    "shellEnv": {
      "type": "object",
      "required": [
        "passThrough"
      ],
      "properties": {
        "passThrough": {
          "type": "array",
          "items": {
            "type": "string",
            "pattern": "^[A-Za-z_][A-Za-z0-9_]*$"
          },
          "title": "array of environment variable names",
          "expected": "an array of environment variable names",
          "description": "Variables that programs a thread starts (`bash` commands, `rg` and `fd`, extensions' `exec`) receive although KnightCode withholds them: provider keys and the server's token (see [the environment of child processes](#the-environment-of-child-processes)). Only the global value counts.",
          "default": []
        }
      }
    }
  }
};

export const ENV_NAMES_SCHEMA: Schema = {
  "type": "array",
  "items": {
    "type": "string",
    "pattern": "^[A-Za-z_][A-Za-z0-9_]*$"
  },
  "title": "array of environment variable names",
  "expected": "an array of environment variable names"
};
