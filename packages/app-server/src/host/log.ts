/**
 * The server's log: one line per event on stderr. stdout belongs to the
 * protocol alone, so nothing here may touch it.
 */
export type LogLevel = "debug" | "info" | "warn" | "error";

const ORDER: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40 };

export interface Logger {
  debug(message: string, detail?: unknown): void;
  info(message: string, detail?: unknown): void;
  warn(message: string, detail?: unknown): void;
  error(message: string, detail?: unknown): void;
  child(scope: string): Logger;
}

export interface LoggerOptions {
  level?: LogLevel;
  write?: (line: string) => void;
  scope?: string;
}

function render(detail: unknown): string {
  if (detail === undefined) return "";
  if (detail instanceof Error) return ` ${detail.stack ?? detail.message}`;
  try {
    return ` ${JSON.stringify(detail)}`;
  } catch {
    return ` ${String(detail)}`;
  }
}

export function levelFromEnv(value: string | undefined): LogLevel {
  return value === "debug" || value === "info" || value === "warn" || value === "error" ? value : "info";
}

export function createLogger(options: LoggerOptions = {}): Logger {
  const threshold = ORDER[options.level ?? "info"];
  const write = options.write ?? ((line: string) => void process.stderr.write(line));
  const make = (scope: string | undefined): Logger => {
    const emit = (level: LogLevel, message: string, detail: unknown) => {
      if (ORDER[level] < threshold) return;
      const prefix = scope ? `[${scope}] ` : "";
      write(`${new Date().toISOString()} ${level} ${prefix}${message}${render(detail)}\n`);
    };
    return {
      debug: (m, d) => emit("debug", m, d),
      info: (m, d) => emit("info", m, d),
      warn: (m, d) => emit("warn", m, d),
      error: (m, d) => emit("error", m, d),
      child: (child) => make(scope ? `${scope}:${child}` : child),
    };
  };
  return make(options.scope);
}
