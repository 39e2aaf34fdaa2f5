// The contract as the compiler sees it: what a handler of an operation gets and what it may answer,
// worked out from the types openapi-typescript generates from the description (generated/<api>/schema.ts).
//
// A handler is a function from its operation's validated input to one of the operation's documented
// replies: `{ status, body }`, typed as the union over the statuses the description lists, each with
// its own body. So a status the description does not list, a body that breaks its status's schema, a
// parameter or body member the description does not have, or a missing or unknown operation in a
// service's table is a `tsc` error (test/types/contract.test-d.ts proves each kind).

/** The body of one media type of a request body or response (the first, when several are described). */
type MediaBody<M> = M extends Record<string, unknown> ? M[keyof M] : undefined;

/** The body a response of this description carries: undefined when it has no content. */
export type ResponseBody<R> = R extends { content: infer M } ? MediaBody<M> : undefined;

/** Header values a handler sets on its answer (the ones the description documents, like Retry-After or Location). */
export type ReplyHeaders = Readonly<Record<string, string>>;

/** One documented answer of an operation: a status it lists and that status's body. */
export type Reply<Op> = Op extends { responses: infer R }
  ? { [S in keyof R & number]: ResponseBody<R[S]> extends undefined
      ? { status: S; body?: undefined; headers?: ReplyHeaders }
      : { status: S; body: ResponseBody<R[S]>; headers?: ReplyHeaders } }[keyof R & number]
  : never;

/** The statuses an operation documents. */
export type StatusOf<Op> = Reply<Op>["status"];

/** One part of an operation's parameters (path, query, header); a part the description marks optional (`query?: {...}`) is there, empty. */
type Part<P, K extends string> = P extends { [key in K]?: infer V } ? ([V] extends [never] ? NoMembers : NonNullable<V>) : NoMembers;

/** A part the operation does not describe: reading any member of it is a type error. */
type NoMembers = Record<never, never>;

/** Header parameters keyed as Node gives them: lower case. */
type LowerKeys<T> = { [K in keyof T as K extends string ? Lowercase<K> : never]: T[K] };

/** The request body of an operation as its handler gets it: undefined when none is described, possibly undefined when optional. */
export type RequestBodyOf<Op> = Op extends { requestBody: infer B }
  ? [B] extends [never]
    ? undefined
    : MediaBody<NonNullable<B> extends { content: infer M } ? M : never>
  : Op extends { requestBody?: infer B }
    ? [NonNullable<B>] extends [never]
      ? undefined
      : MediaBody<NonNullable<B> extends { content: infer M } ? M : never> | undefined
    : undefined;

/** What a handler of an operation gets, checked against the description before it runs. */
export interface Input<Op> {
  params: Part<Op extends { parameters: infer P } ? P : never, "path">;
  query: Part<Op extends { parameters: infer P } ? P : never, "query">;
  headers: LowerKeys<Part<Op extends { parameters: infer P } ? P : never, "header">>;
  body: RequestBodyOf<Op>;
}

/**
 * A handler of one operation: its validated input and the service's context (what it acts on:
 * the store, the authenticated caller) to one of its documented replies.
 */
export type Handler<Op, Context, In = Input<Op>> = (input: In, context: Context) => Reply<Op> | Promise<Reply<Op>>;

/** One handler for every operation of a description, none for an operation it does not have. */
export type HandlerTable<Operations, Context, InputOf extends { [K in keyof Operations]: unknown } = { [K in keyof Operations]: Input<Operations[K]> }> = {
  [K in keyof Operations]: Handler<Operations[K], Context, InputOf[K]>;
};

/** What the server writes for a reply: any documented one, seen without its operation. */
export interface AnyReply {
  status: number;
  body?: unknown;
  headers?: ReplyHeaders;
}
