/**
 * The row's dates. The page's first date formatter costs 40-110 ms to build
 * (the browser loads its locale data then); once built, one formats in
 * microseconds. So each is built once, and only when first needed: recent
 * rows ("3 h") need none, and the full date waits for a pointer on the time.
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
