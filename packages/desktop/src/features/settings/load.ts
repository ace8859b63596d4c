import { useCallback, useEffect, useState } from "preact/hooks";

export interface Loaded<T> {
  data: T | undefined;
  /** The server's message when the last load failed. */
  error: string | undefined;
  loading: boolean;
  reload: () => void;
}

/**
 * Runs a request when `deps` change or `reload` is called; an answer that
 * arrives after a newer load started is dropped, so the screen never shows
 * a stale project's data.
 */
export function useLoad<T>(load: () => Promise<T>, deps: unknown[]): Loaded<T> {
  const [round, setRound] = useState(0);
  const [state, setState] = useState<{ data: T | undefined; error: string | undefined; loading: boolean }>({
    data: undefined,
    error: undefined,
    loading: true,
  });
  useEffect(() => {
    let current = true;
    setState((s) => ({ ...s, loading: true }));
    load().then(
      (data) => current && setState({ data, error: undefined, loading: false }),
      (error: unknown) => current && setState({ data: undefined, error: error instanceof Error ? error.message : String(error), loading: false }),
    );
    return () => {
      current = false;
    };
    // `load` is a fresh closure each render: the callers' deps say when it means something new.
  }, [...deps, round]);
  const reload = useCallback(() => setRound((r) => r + 1), []);
  return { ...state, reload };
}
