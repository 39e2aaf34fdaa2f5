// The secrets API's wire types, from the schemas generated from its description: what the domain
// takes from a request and gives back for an answer. No hand-written copy of a schema.
import type { components } from "../../generated/secrets/schema.ts";

export type Schemas = components["schemas"];

/** Members of a body with null taken out: dispatch (app.ts) reads every null the description allows as its zero value. */
export type NullsRead<T> = { [K in keyof T]: Exclude<T[K], null> };

/** A request body schema as a handler passes it on: checked against the description, its nulls read as zero values. */
export type BodyRead<Name extends keyof Schemas> = NullsRead<NonNullable<Schemas[Name]>>;
