/**
 * The row's dates. The page's first date formatter costs tens of
 * milliseconds to build (the browser loads its locale data then); once built
 * one formats in microseconds. So they are built once, and early: while the
 * first page of the list is on its way, not while its rows are drawn.
 */
let day: Intl.DateTimeFormat | undefined;
let full: Intl.DateTimeFormat | undefined;

/** "Dec 2" in the reader's locale. */
export function dayText(ms: number): string {
  day ??= new Intl.DateTimeFormat(undefined, { month: "short", day: "numeric" });
  return day.format(ms);
}

/** Date and time to the second, as Date#toLocaleString() writes it, for a tooltip. */
export function fullText(iso: string): string {
  full ??= new Intl.DateTimeFormat(undefined, { year: "numeric", month: "numeric", day: "numeric", hour: "numeric", minute: "numeric", second: "numeric" });
  return full.format(Date.parse(iso));
}

/** Builds both formatters now, while the page waits on the network anyway. */
export function warmTimeFormats(): void {
  dayText(0);
  fullText("1970-01-01T00:00:00Z");
}
