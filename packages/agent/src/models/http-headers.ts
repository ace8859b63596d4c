/**
 * Header fields as `fetch`'s `Headers` keeps them, for the model SDKs'
 * requests and our transport's responses: names in lower case, a field
 * appended twice read as its values joined with ", ", iteration in name
 * order. Ours because Node's `Headers` is undici's: the first touch of the
 * global loads all of undici (with TLS, HTTP/2 and zlib), megabytes a
 * server that never calls the global `fetch` need not hold.
 */
export class HeaderFields {
  private readonly fields = new Map<string, string>();
  private readonly cookies: string[] = [];

  /** From pairs (Node's flat raw list is read two at a time by `fromRaw`). */
  constructor(init?: Iterable<readonly [string, string]>) {
    if (init !== undefined) for (const [name, value] of init) this.append(name, value);
  }

  /** From Node's flat list of raw names and values. */
  static fromRaw(raw: readonly string[]): HeaderFields {
    const fields = new HeaderFields();
    for (let i = 0; i + 1 < raw.length; i += 2) fields.append(raw[i] as string, raw[i + 1] as string);
    return fields;
  }

  append(name: string, value: string): void {
    const key = name.toLowerCase();
    const text = String(value);
    if (key === "set-cookie") this.cookies.push(text);
    const before = this.fields.get(key);
    this.fields.set(key, before === undefined ? text : `${before}, ${text}`);
  }

  set(name: string, value: string): void {
    this.delete(name);
    this.append(name, value);
  }

  delete(name: string): void {
    const key = name.toLowerCase();
    this.fields.delete(key);
    if (key === "set-cookie") this.cookies.length = 0;
  }

  get(name: string): string | null {
    return this.fields.get(name.toLowerCase()) ?? null;
  }

  has(name: string): boolean {
    return this.fields.has(name.toLowerCase());
  }

  getSetCookie(): string[] {
    return [...this.cookies];
  }

  *entries(): IterableIterator<[string, string]> {
    for (const name of [...this.fields.keys()].sort()) yield [name, this.fields.get(name) as string];
  }

  *keys(): IterableIterator<string> {
    for (const [name] of this.entries()) yield name;
  }

  *values(): IterableIterator<string> {
    for (const [, value] of this.entries()) yield value;
  }

  forEach(callback: (value: string, name: string, headers: HeaderFields) => void): void {
    for (const [name, value] of this.entries()) callback(value, name, this);
  }

  [Symbol.iterator](): IterableIterator<[string, string]> {
    return this.entries();
  }

  /**
   * Whether `value` holds header fields the way a `Headers` does, ours or
   * undici's, told without touching the global `Headers` (which would load
   * undici): the SDKs take such a value as a list of fields, not as a record.
   */
  static isFieldList(value: unknown): boolean {
    if (value instanceof HeaderFields) return true;
    if (typeof value !== "object" || value === null) return false;
    const candidate = value as Record<string, unknown>;
    return typeof candidate.entries === "function" && typeof candidate.append === "function" && typeof candidate.get === "function";
  }
}
