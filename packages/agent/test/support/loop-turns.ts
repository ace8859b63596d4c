/**
 * Counts the turns of the event loop from now until `stop`: an immediate
 * that queues the next one runs once a turn, and only when nothing holds
 * the loop (a relay that does not let it turn holds the count still).
 */
export function countLoopTurns(): { readonly turns: number; stop(): void } {
  let turns = 0;
  let counting = true;
  const count = () => {
    turns++;
    if (counting) setImmediate(count);
  };
  setImmediate(count);
  return {
    get turns() {
      return turns;
    },
    stop() {
      counting = false;
    },
  };
}
