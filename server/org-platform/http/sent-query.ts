// The query of a request as the client sent it, read by the names the description gives the
// operation's query parameters on the wire: `include`, `q`, and the deepObject ones with their
// brackets (`page[number]`, `filter[names]`). The handlers read it rather than the validated
// `query` because pagination links repeat the query exactly as sent (other parameters kept, in their
// order) and because page[...] and filter[...] are read the same whatever a validator stage makes of
// req.query (brackets as they are or percent-encoded, the validator on or off).

/** The names a query of this shape is sent under: a deepObject parameter's members each with its brackets. */
export type SentQueryName<Query> = [Query] extends [never]
  ? never
  : {
      [K in keyof Query & string]-?: NonNullable<Query[K]> extends readonly unknown[] | string | number | boolean
        ? K
        : `${K}[${keyof NonNullable<Query[K]> & string}]`;
    }[keyof Query & string];

/** The wire names of an operation's described query parameters. */
export type OperationQueryName<Op> = Op extends { parameters: { query?: infer Q } } ? SentQueryName<NonNullable<Q>> : never;

/** The sent query of one request, read by the described names of its operation only. */
export class SentQuery<Name extends string> {
  readonly #params: URLSearchParams;

  /** search: the query string as sent, without the "?". */
  constructor(search: string) {
    this.#params = new URLSearchParams(search);
  }

  /** The first value sent under this name. */
  get(name: Name): string | undefined {
    return this.#params.get(name) ?? undefined;
  }

  /** Every value sent under this name, in order. */
  getAll(name: Name): string[] {
    return this.#params.getAll(name);
  }

  /** Every pair as sent, described or not, except those named. */
  pairsWithout(...names: Name[]): [string, string][] {
    const left: string[] = names;
    return [...this.#params].filter(([key]) => !left.includes(key));
  }
}
