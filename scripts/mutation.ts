// npm run mutation [-- <module>... | --changed <git-ref>] [--force]
//
// Mutation testing (StrykerJS, vitest runner) of the modules that guard secrets and access, one
// module at a time, each against the unit tests that are its specification. Incremental: the
// results of the last run are kept in reports/mutation/<module>.incremental.json (committed), so a
// run only tests the mutants whose code or covering tests changed. A module scoring below 90% fails
// the run (exit 1); the table printed at the end is the one in docs/mutation-testing.md.
//
//   npm run mutation                      every guard module
//   npm run mutation -- secrets-policy    one module (names below)
//   npm run mutation -- --changed main    the modules whose source or tests differ from main
//   npm run mutation -- --force           ignore the incremental files, test every mutant again
//   npm run mutation -- --list            the modules and their tests
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { Stryker } from "@stryker-mutator/core";
import type { MutantResult } from "@stryker-mutator/api/core";

const root = path.resolve(import.meta.dirname, "..");

export interface GuardModule {
  name: string;
  /** The file mutated. */
  mutate: string;
  /**
   * Only these functions of the file, each named by a pattern matching its first line: the lines
   * from there to its closing brace are mutated (found afresh each run, so edits do not shift them).
   */
  functions?: RegExp[];
  /** The unit tests that specify it (fast, no servers where possible). */
  tests: string[];
  /**
   * Mutants reviewed as equivalent: no input tells them from the code, so no behaviour test can kill
   * them. Matched by mutator, the exact source text mutated and the replacement, so an entry stops
   * matching (and the mutant counts again) as soon as that code changes.
   */
  equivalent?: Equivalent[];
}

export interface Equivalent {
  mutator: string;
  original: string;
  replacement: string;
  /** Text the mutated line must hold too, where the original alone (`false`, `""`) is found in several places. */
  line?: string;
  why: string;
}

export const BREAK_AT = 90;

export const GUARD_MODULES: GuardModule[] = [
  {
    name: "secrets-policy",
    mutate: "server/secrets/sys/policy.ts",
    tests: ["test/secrets/policy.test.ts", "test/secrets/policy-precedence.test.ts"],
    equivalent: [
      { mutator: "EqualityOperator", original: "a.firstWildcard > b.firstWildcard", replacement: "a.firstWildcard >= b.firstWildcard", why: "after the `!==` check on the line the two sides differ, so `>` and `>=` (`<` and `<=`) answer alike" },
      { mutator: "EqualityOperator", original: "a.plusSegments < b.plusSegments", replacement: "a.plusSegments <= b.plusSegments", why: "after the `!==` check on the line the two sides differ, so `>` and `>=` (`<` and `<=`) answer alike" },
      { mutator: "EqualityOperator", original: "a.pattern.length > b.pattern.length", replacement: "a.pattern.length >= b.pattern.length", why: "after the `!==` check on the line the two sides differ, so `>` and `>=` (`<` and `<=`) answer alike" },
      {
        mutator: "EqualityOperator",
        original: "a.pattern > b.pattern",
        replacement: "a.pattern >= b.pattern",
        why: "the rules are merged by pattern, so two rules never have the same pattern: `>` and `>=` answer alike",
      },
    ],
  },
  {
    // Push-MFA namespaces: the canonical path of a namespace header (what a caller addresses) and
    // which namespaces are a namespace's parents (whose methods it sees and may not delete).
    name: "secrets-mfa-namespaces",
    mutate: "server/secrets/push-mfa/namespaces.ts",
    tests: ["test/secrets/mfa-rules.test.ts", "test/shared/trim.test.ts"],
  },
  {
    // The secrets service's token table: who a token is, and whether it may act on a path.
    name: "secrets-auth",
    mutate: "server/secrets/sys/auth.ts",
    tests: ["test/secrets/access-control.test.ts"],
  },
  {
    // Which secrets operations are served without a request token (security: [] in the description)
    // and which capabilities the others need: the pipeline skips authentication and the policy check
    // only for the first.
    name: "secrets-operation-access",
    mutate: "server/secrets/operations.ts",
    functions: [/^function capabilitiesOf\(/, /^function noCapabilities\(/],
    tests: ["test/secrets/description.test.ts", "test/secrets/replication-description.test.ts"],
  },
  {
    name: "mesh-acl-rules",
    mutate: "server/mesh/domain/acl-rules.ts",
    tests: ["test/mesh/acl-rules.test.ts", "test/mesh/acl-rule-precedence.test.ts"],
    equivalent: [
      {
        mutator: "Regex",
        original: String.raw`/\s+|#[^\n]*|\/\/[^\n]*|\/\*[\s\S]*?\*\/|"((?:[^"\\\n]|\\.)*)"|([A-Za-z_][A-Za-z0-9_-]*)|([{}=,])|(.)/g`,
        replacement: String.raw`/\s|#[^\n]*|\/\/[^\n]*|\/\*[\s\S]*?\*\/|"((?:[^"\\\n]|\\.)*)"|([A-Za-z_][A-Za-z0-9_-]*)|([{}=,])|(.)/g`,
        why: "white space is skipped whether a run of it is one match or one match per character (lines are counted in every match)",
      },
    ],
  },
  {
    name: "mesh-acl",
    mutate: "server/mesh/domain/acl.ts",
    tests: ["test/mesh/acl-rules.test.ts", "test/mesh/acl-rule-precedence.test.ts"],
    equivalent: [
      {
        mutator: "ConditionalExpression",
        original: "a === undefined",
        replacement: "false",
        why: "PRECEDENCE[undefined] is undefined, and undefined >= a number is false: the next line answers b too",
      },
      { mutator: "EqualityOperator", original: "PRECEDENCE[a] >= PRECEDENCE[b]", replacement: "PRECEDENCE[a] > PRECEDENCE[b]", why: "between equal access levels a and b are the same level" },
      {
        mutator: "EqualityOperator",
        original: "prefix.length > best.prefix.length",
        replacement: "prefix.length >= best.prefix.length",
        why: "two prefixes of one length that both start the name are the same prefix, one key of the rules: the level is the same",
      },
    ],
  },
  {
    // Token resolution: secret -> token -> policies and roles -> merged rules (or 403).
    name: "mesh-token-resolution",
    mutate: "server/mesh/acl-service.ts",
    functions: [/^\s+resolve\(secret/],
    tests: ["test/mesh/token-resolution-precedence.test.ts", "test/mesh/acl.api.test.ts"],
    equivalent: [
      {
        mutator: "ArrayDeclaration",
        original: "[]",
        replacement: '["Stryker was here"]',
        line: "token.Rules ? [this.rulesOf(token.Rules)] : []",
        why: "mergeRules reads only rule kinds (service, agent, operator, acl...), which a string has none of: it adds no rule",
      },
    ],
  },
  {
    // When a token stops resolving: strictly after its expiration time (shared by every ACL object kind).
    name: "mesh-token-expiry",
    mutate: "server/mesh/acl/base.ts",
    functions: [/^\s+protected expired\(/],
    tests: ["test/mesh/token-resolution-precedence.test.ts", "test/mesh/acl.api.test.ts"],
    equivalent: [
      {
        mutator: "ConditionalExpression",
        original: "token.ExpirationTime !== undefined",
        replacement: "true",
        why: "Date.parse(undefined) is NaN, and NaN < now is false: a token without an expiration time does not expire either way",
      },
    ],
  },
  {
    // A token's secret is shown only to a caller with acl:write in the token's namespace (and to
    // the token itself): every other reader sees `<hidden>`.
    name: "mesh-token-secrets",
    mutate: "server/mesh/acl/tokens.ts",
    functions: [/^\s+list\(authorizer/, /^\s+read\(authorizer/, /^\s+readSelf\(secret/, /^\s+private showsSecret\(/],
    tests: ["test/mesh/acl-api.api.test.ts"],
    equivalent: [
      {
        mutator: "StringLiteral",
        original: '"write"',
        replacement: '""',
        line: 'token.Namespace, { type: "acl" }, "write"',
        why: "an access other than read needs write (domain/acl.ts grants): an empty one is checked as write",
      },
    ],
  },
  {
    name: "mesh-token-view",
    mutate: "server/mesh/acl/base.ts",
    functions: [/^\s+protected tokenView\(/],
    tests: ["test/mesh/acl-api.api.test.ts"],
  },
  {
    // Finding a token by its secret (every authenticated mesh request), through every write.
    name: "mesh-acl-store",
    mutate: "server/mesh/store/acl-store.ts",
    functions: [/^\s+getBy\(key/, /^\s+put\(id/, /^\s+delete\(id/, /^\s+private keep\(/, /^\s+private forgetSecondKey\(/],
    tests: ["test/mesh/acl-store.test.ts"],
    equivalent: [
      { mutator: "ConditionalExpression", original: "id === undefined", replacement: "false", why: "a Map holds no row under undefined: the lookup answers undefined either way" },
    ],
  },
  {
    name: "secrets-rekey",
    mutate: "server/secrets/rekey/rekey.ts",
    tests: ["test/secrets/rekey-machine.test.ts", "test/secrets/rekey-refusal-precedence.test.ts"],
    equivalent: [
      {
        mutator: "ObjectLiteral",
        original: "{ attempt: undefined }",
        replacement: "{}",
        why: "the outcome's attempt is read as outcome.attempt: undefined whether the member is there or not",
      },
      {
        mutator: "ConditionalExpression",
        original: "error instanceof PgpKeyError",
        replacement: "true",
        why: "readPgpKeys throws nothing but PgpKeyError: no other error reaches the rethrow",
      },
    ],
  },
  {
    // The seal: its share configuration, and whether a reconstructed key is the operators' key.
    name: "secrets-seal",
    mutate: "server/secrets/sys/seal.ts",
    tests: ["test/secrets/seal.test.ts"],
  },
  {
    // Key shares encrypted to the operators' PGP keys, each to its own.
    name: "secrets-pgp",
    mutate: "server/secrets/sys/pgp.ts",
    tests: ["test/secrets/pgp.test.ts"],
  },
  {
    name: "secrets-shamir",
    mutate: "server/secrets/sys/shamir.ts",
    tests: ["test/secrets/shamir.test.ts", "test/secrets/rekey-machine.test.ts"],
  },
  {
    name: "secrets-list-method",
    mutate: "server/secrets/http/list-method.ts",
    tests: ["test/secrets/list-method.test.ts", "test/secrets/list-method-framing-precedence.test.ts", "test/secrets/list-connection.test.ts"],
    equivalent: [
      { mutator: "StringLiteral", original: '"passthrough"', replacement: '""', why: "a state no branch names passes every line on unchanged, as passthrough does" },
      { mutator: "ConditionalExpression", original: 'this.#state === "passthrough"', replacement: "false", why: "in passthrough, lines are handed on unchanged by the line handler's default branch too; at the end of headers passthrough cannot be the state" },
      { mutator: "ConditionalExpression", original: "default:\n        return undefined;", replacement: "default:", why: "unreachable: the line handler is not called in the body, chunk-data or passthrough states" },
      { mutator: "BooleanLiteral", original: "false", replacement: "true", line: "  #chunked = false;", why: "#chunked is reset at every request line before it is read" },
      { mutator: "ConditionalExpression", original: "this.#pendingLength > 0", replacement: "true", why: "joining no pending bytes to the line gives the same line" },
      { mutator: "EqualityOperator", original: "this.#pendingLength > 0", replacement: "this.#pendingLength >= 0", why: "joining no pending bytes to the line gives the same line" },
      { mutator: "MethodExpression", original: 'line.toString("latin1").split(";")[0]!.trim()', replacement: 'line.toString("latin1").split(";")[0]!', why: "parseInt skips leading white space and stops at the line end" },
      { mutator: "ConditionalExpression", original: "isBlank(line)", replacement: "true", line: 'if (isBlank(line)) this.#state = "request-line";', why: "a trailer line taken as the end of trailers is then read as a request line that is not LIST, then its blank line ends the headers: the same bytes go out" },
      { mutator: "ConditionalExpression", original: "colon <= 0", replacement: "false", why: "a header line without a colon or with an empty name never equals content-length or transfer-encoding" },
      { mutator: "EqualityOperator", original: "colon <= 0", replacement: "colon < 0", why: "an empty header name is neither content-length nor transfer-encoding" },
      { mutator: "Regex", original: "/^\\d+$/", replacement: "/\\d+$/", why: "Number() of a value with other characters is NaN either way: passthrough" },
      { mutator: "Regex", original: "/^\\d+$/", replacement: "/^\\d+/", why: "Number() of a value with other characters is NaN either way: passthrough" },
      { mutator: "ConditionalExpression", original: "this.#contentLength > 0", replacement: "true", why: "a body of length 0 is passed on as no bytes" },
      { mutator: "EqualityOperator", original: "this.#contentLength > 0", replacement: "this.#contentLength >= 0", why: "a body of length 0 is passed on as no bytes" },
      { mutator: "Regex", original: "/^(LIST|HELP) (\\S+)( HTTP\\/\\d\\.\\d)?(\\r?\\n)$/", replacement: "/(LIST|HELP) (\\S+)( HTTP\\/\\d\\.\\d)?(\\r?\\n)$/", why: "only lines starting with LIST or HELP reach it" },
      { mutator: "ConditionalExpression", original: 'state === "passthrough"', replacement: "false", why: "in passthrough every line is handed on unchanged by the line handler's default branch: the same bytes, only read" },
      { mutator: "ConditionalExpression", original: "this.#pendingLength > 0", replacement: "true", line: "Buffer.concat", why: "no pending bytes joined to the line give the same line" },
      { mutator: "EqualityOperator", original: "this.#pendingLength > 0", replacement: "this.#pendingLength >= 0", line: "Buffer.concat", why: "no pending bytes joined to the line give the same line" },
      { mutator: "ConditionalExpression", original: "rewritten === text", replacement: "false", why: "a line the rewrite leaves as it is goes on as a copy of the same bytes" },
      { mutator: "ConditionalExpression", original: "line.length <= LIST_START.length", replacement: "false", why: "a shortcut: a line of five bytes or fewer is not a LIST request line, which rewriteListRequestLine leaves as it is" },
      { mutator: "EqualityOperator", original: "line.length <= LIST_START.length", replacement: "line.length < LIST_START.length", why: "a shortcut: a line of five bytes is not a LIST request line either" },
      { mutator: "ConditionalExpression", original: "endsName(line[14])", replacement: "true", why: "a shortcut before #header, which compares the whole name" },
      { mutator: "ConditionalExpression", original: "first === 0x63", replacement: "true", why: "a shortcut before #header, which compares the whole name" },
      { mutator: "LogicalOperator", original: "first === 0x63 && endsName(line[14])", replacement: "first === 0x63 || endsName(line[14])", why: "a shortcut before #header, which compares the whole name" },
      { mutator: "ConditionalExpression", original: "first === 0x74", replacement: "true", why: "a shortcut before #header, which compares the whole name" },
      { mutator: "LogicalOperator", original: "first === 0x74 && endsName(line[17])", replacement: "first === 0x74 || endsName(line[17])", why: "a shortcut before #header, which compares the whole name" },
      { mutator: "ConditionalExpression", original: "(first === 0x63 && endsName(line[14])) || (first === 0x74 && endsName(line[17]))", replacement: "true", why: "a shortcut before #header, which compares the whole name" },
      { mutator: "ConditionalExpression", original: "byte === 0x3a || byte === 0x20 || byte === 0x09", replacement: "true", why: "a shortcut before #header, which compares the whole name" },
      { mutator: "ConditionalExpression", original: "line.length === 2", replacement: "true", line: "line[0] === CR", why: "only a line of one or two bytes can be LF or CR LF; a longer line starting with CR is one the parser refuses, with its connection" },
      { mutator: "ConditionalExpression", original: "this.#pending.length < size", replacement: "true", why: "a new buffer every time is the same bytes, only more copying" },
      { mutator: "EqualityOperator", original: "this.#pending.length < size", replacement: "this.#pending.length <= size", why: "a new buffer when it is just full is the same bytes, only more copying" },
      { mutator: "MethodExpression", original: "Math.min(MAX_LINE, Math.max(size, 2 * (this.#pending?.length ?? 64)))", replacement: "Math.max(MAX_LINE, Math.max(size, 2 * (this.#pending?.length ?? 64)))", why: "a larger buffer holds the same bytes (lines over MAX_LINE are given up on before)" },
      { mutator: "ArithmeticOperator", original: "2 * (this.#pending?.length ?? 64)", replacement: "2 / (this.#pending?.length ?? 64)", why: "a buffer of exactly the size needed holds the same bytes (the doubling is for time, measured in bench/list-ab.ts)" },
      { mutator: "BooleanLiteral", original: "false", replacement: "true", line: "  #socketPaused = false;", why: "resuming a socket that is not paused does nothing" },
      { mutator: "ConditionalExpression", original: "this.#socketPaused", replacement: "true", line: "if (this.#socketPaused) {", why: "resuming a socket that is not paused does nothing" },
      { mutator: "LogicalOperator", original: "!this.push(part) && !this.#socketPaused", replacement: "!this.push(part) || !this.#socketPaused", why: "a socket paused while the reader keeps up is resumed by the _read that follows at once" },
      { mutator: "ObjectLiteral", original: "{ allowHalfOpen: true, decodeStrings: false }", replacement: "{}", why: "allowHalfOpen is true by default; decoded strings are the same bytes as Buffers" },
      { mutator: "BooleanLiteral", original: "false", replacement: "true", line: "decodeStrings: false", why: "a string decoded to a Buffer before the socket writes it is the same bytes" },
      { mutator: "BooleanLiteral", original: "true", replacement: "false", line: "let more = true;", why: "overwritten by the first chunk's write: _writev is never called with no chunk" },
      { mutator: "ConditionalExpression", original: "!this.destroyed && !this.readableEnded", replacement: "true", why: "destroying a connection that is closed already does nothing" },
      { mutator: "UpdateOperator", original: "this.#holds++", replacement: "this.#holds--", why: "the hold's number only has to differ from the last one's: counting down does too" },
      { mutator: "ConditionalExpression", original: "this.#pending === undefined || this.#pending.length < size", replacement: "true", why: "a new buffer every time is the same bytes, only more copying" },
      { mutator: "ConditionalExpression", original: "this.#rewriter.holding", replacement: "true", why: "a timer armed while nothing is held finds nothing to release when it fires, and a new hold re-arms it first" },
      { mutator: "ConditionalExpression", original: "this.#holdTimer === undefined", replacement: "false", why: "a hold whose timer fired was released: the rewriter holds nothing under that number any more" },
      { mutator: "ConditionalExpression", original: "this.#holdTimer !== undefined", replacement: "true", why: "clearing no timer does nothing" },
      { mutator: "ConditionalExpression", original: "this.#holdTimer !== undefined", replacement: "false", why: "clearing the timer of a hold that ended spares a wake-up only: when it fires release() finds nothing held, and a new hold re-arms it first" },
      { mutator: "EqualityOperator", original: "this.#holdTimer !== undefined", replacement: "this.#holdTimer === undefined", why: "clearing the timer of a hold that ended spares a wake-up only: when it fires release() finds nothing held, and a new hold re-arms it first" },
      { mutator: "BlockStatement", original: "{\n      clearTimeout(this.#holdTimer);\n      this.#holdTimer = undefined;\n    }", replacement: "{}", why: "clearing the timer of a hold that ended spares a wake-up only: when it fires release() finds nothing held, and a new hold re-arms it first" },
      { mutator: "LogicalOperator", original: "!this.destroyed && !this.readableEnded", replacement: "!this.destroyed || !this.readableEnded", why: "destroying a connection that is closed already does nothing" },
    ],
  },
  {
    name: "org-access",
    mutate: "server/org-platform/domain/access.ts",
    tests: ["test/org-platform/domain.test.ts", "test/org-platform/access-precedence.test.ts"],
  },
  {
    // What a request acts on, authorized from its path before its input is read.
    name: "org-authorize",
    mutate: "server/org-platform/service.ts",
    // With the role each check rests on: kept per state version, by caller and organization.
    functions: [/^\s+authorize\(caller/, /^\s+private access\(caller/, /^\s+private roleOf\(caller/, /^function callerKey\(/],
    tests: ["test/org-platform/authorize.test.ts"],
    // The route gives every parameter its path names; an absent one would name no resource, and so
    // would any other default: "" and "Stryker was here!" both answer the same 404.
    equivalent: [
      ...["organization_name", "oauth_client_id", "team_id"].map((name) => ({
        mutator: "StringLiteral",
        original: '""',
        replacement: '"Stryker was here!"',
        line: `params.${name} ?? ""`,
        why: "an absent path parameter names no resource: any default that names none answers the same 404",
      })),
      // Keeping roles saves working them out again; a role worked out anew is the same role.
      { mutator: "ConditionalExpression", original: "known !== undefined", replacement: "false", why: "a kept role not used: worked out again, the same" },
    ],
  },
  {
    // The org platform's one form of a request path, settled before routing: what is authorized is
    // what the handler acts on (dot segments and undecodable escapes name nothing).
    name: "org-canonical-path",
    mutate: "server/org-platform/http/canonical.ts",
    tests: ["test/org-platform/http-guards.test.ts"],
    equivalent: [
      {
        mutator: "ConditionalExpression",
        original: "canonical !== path",
        replacement: "true",
        why: "a canonical path written again is the same URL; originalUrl is the URL already, the stage running at the app's top level",
      },
    ],
  },
  {
    // Who calls: a token of a user, a team or an organization that still exists, else 401.
    name: "org-authenticate",
    mutate: "server/org-platform/service.ts",
    functions: [/^\s+authenticate\(secret/],
    tests: ["test/org-platform/authenticate.test.ts"],
  },
  {
    name: "replication-filter",
    mutate: "server/secrets/replication/domain/filter.ts",
    tests: ["test/secrets/replication-domain.test.ts", "test/secrets/replication-filter-precedence.test.ts"],
  },
  {
    // Which requests a cluster serves in its replication roles: a DR secondary only the replication
    // API, a performance secondary no write and no mount its paths filter leaves out.
    name: "replication-admission",
    mutate: "server/secrets/replication/domain/admission.ts",
    tests: ["test/secrets/replication-admission.test.ts"],
  },
  {
    // The tokens that let a secondary join its primary: signed by the primary (ES512), verified
    // before use, their credentials encrypted to the secondary's key.
    name: "replication-activation",
    mutate: "server/secrets/replication/domain/activation.ts",
    tests: ["test/secrets/replication-domain.test.ts"],
    equivalent: [
      {
        mutator: "ConditionalExpression",
        original: 'key.asymmetricKeyType !== "ec"',
        replacement: "false",
        why: "only an EC key has a named curve: a key on secp521r1 is an EC key",
      },
      {
        mutator: "OptionalChaining",
        original: "key.asymmetricKeyDetails?.namedCurve",
        replacement: "key.asymmetricKeyDetails.namedCurve",
        why: "reached only for an EC key, whose details Node always gives",
      },
      {
        mutator: "StringLiteral",
        original: '"utf8"',
        replacement: '""',
        line: "cipher.update(plaintext",
        why: "a cipher reads a string without an encoding as UTF-8",
      },
    ],
  },
  {
    // A wrapping token is unwrapped once, by the primary that signed it, in its own mode only.
    name: "replication-unwrap",
    mutate: "server/secrets/replication/manager.ts",
    functions: [/^\s+unwrap\(token/],
    tests: ["test/secrets/replication-tokens.api.test.ts"],
    equivalent: [
      {
        mutator: "ConditionalExpression",
        original: "error instanceof ActivationTokenError",
        replacement: "true",
        why: "verifying a token throws nothing else: node:crypto's verify answers false for a bad signature",
      },
      {
        mutator: "ConditionalExpression",
        original: 'claims.type !== "wrapping"',
        replacement: "false",
        why: "an encrypted token's credentials were never kept wrapped: the primary's unwrap finds none to give",
      },
      {
        mutator: "StringLiteral",
        original: '"performance"',
        replacement: '""',
        line: 'mode === "dr" ? "performance" : "dr"',
        why: "mode() takes every mode but dr for performance",
      },
    ],
  },
  {
    // ... and its credentials handed out once, before the token expires.
    name: "replication-wrapped-credentials",
    mutate: "server/secrets/replication/primary-role.ts",
    functions: [/^\s+holds\(jti/, /^\s+unwrap\(jti/],
    tests: ["test/secrets/replication-tokens.api.test.ts"],
  },
  {
    // The shape limits of a JSON body (depth, string length, members), checked on its bytes as they
    // arrive, before anything is parsed.
    name: "json-shape",
    mutate: "server/shared/json-body.ts",
    functions: [/^export class JsonShapeScanner/, /^export function shapeProblem/],
    tests: ["test/shared/json-shape.test.ts"],
    equivalent: [
      {
        mutator: "ConditionalExpression",
        original: "c === 0x3a",
        replacement: "false",
        why: "a colon only ever follows a key: let through, it starts nothing and counts nothing",
      },
      {
        mutator: "StringLiteral",
        original: '"utf8"',
        replacement: '""',
        line: "Buffer.from(text",
        why: "Buffer.from reads a string without an encoding as UTF-8",
      },
    ],
  },
  {
    // Reading a JSON body: refused before a byte is read (declared length), as the bytes come (size,
    // shape), after (syntax); no body waited for when none is declared.
    name: "json-body-read",
    mutate: "server/shared/json-body.ts",
    functions: [
      /^export class JsonBodyError/,
      /^export function declaredLengthOverLimit/,
      /^export function declaresBody/,
      /^export function readBodyText/,
      /^export async function readJsonBody/,
      /^export function withJsonBody/,
      /^export function objectMembers/,
    ],
    tests: ["test/shared/json-body.test.ts"],
    equivalent: [
      { mutator: "ConditionalExpression", original: "header === undefined", replacement: "false", why: "an absent header is no number either: Number(undefined) is NaN, not finite" },
      {
        mutator: "StringLiteral",
        original: '""',
        replacement: '"Stryker was here!"',
        line: "req.socket?.remoteAddress",
        why: "the name of the pool of requests without an address: any one name pools them alike",
      },
    ],
  },
  {
    // The process's budgets: connections per address and in all (the largest holder's idle one
    // gives way), and request-body bytes in flight (the address holding most gives way).
    name: "bounds-budgets",
    mutate: "server/shared/bounds.ts",
    functions: [/^export class ConnectionBudget/, /^export class BodyBudget/],
    tests: ["test/shared/bounds.test.ts"],
    // Shortcuts and bookkeeping no request can tell from the rule: the checks before the loops,
    // entries of nothing kept or dropped, an address never holding more than it would itself.
    equivalent: [
      { mutator: "StringLiteral", original: '""', replacement: '"Stryker was here!"', line: "socket.remoteAddress", why: "the name of the pool of connections without an address: any one name pools them alike" },
      { mutator: "ConditionalExpression", original: "own.size === 0", replacement: "false", why: "an address's empty set counts as none (held is 0); dropping it only keeps the map small" },
      { mutator: "ConditionalExpression", original: "this.#total + bytes > this.max", replacement: "true", why: "a shortcut: the loop inside asks the same and does nothing when the chunk fits" },
      { mutator: "EqualityOperator", original: "this.#total + bytes > this.max", replacement: "this.#total + bytes >= this.max", why: "at exactly the budget the loop inside (which asks >) does nothing" },
      { mutator: "EqualityOperator", original: "this.#total + bytes > this.max", replacement: "this.#total + bytes >= this.max", line: "while (", why: "reached only past the budget (the check before asks >): never at exactly it" },
      { mutator: "ConditionalExpression", original: "left > 0", replacement: "true", why: "an address holding nothing kept as 0 counts as none: 0 is never more than what an address would hold" },
      { mutator: "EqualityOperator", original: "left > 0", replacement: "left >= 0", why: "an address holding nothing kept as 0 counts as none: 0 is never more than what an address would hold" },
      { mutator: "ConditionalExpression", original: "other !== address", replacement: "true", why: "an address never holds more than it would itself with its new chunk" },
      { mutator: "ConditionalExpression", original: "top === undefined", replacement: "false", why: "with no address chosen, no claim belongs to it: the search finds none either way" },
    ],
  },
  {
    // Answers of reads sent again: never to another request, never after a write.
    name: "answer-memo",
    mutate: "server/shared/answer-memo.ts",
    tests: ["test/shared/answer-memo.test.ts"],
    equivalent: [
      { mutator: "ConditionalExpression", original: "key === undefined", replacement: "true", why: "the key of a request built again is the same key: the WeakMap only saves building it twice" },
    ],
  },
  {
    // The bytes the answer memo counts are the bytes it holds: a kept body owns its memory.
    name: "own-bytes",
    mutate: "server/shared/own-bytes.ts",
    tests: ["test/shared/answer-memo.test.ts"],
  },
  {
    // What an answer says: a kept JSON text is only ever the text of the value it is written for.
    name: "json-text",
    mutate: "server/shared/json-text.ts",
    // holdsUnchanging is left out: it only decides whether a document is walked or written whole,
    // and both write the same text (the tests prove it for both ways).
    functions: [/^export function unchanging/, /^function freezeDeeply/, /^export function jsonText/, /^function arrayText/, /^function memberText/, /^function hasToJson/, /^function isPlainObject/],
    tests: ["test/shared/json-text.test.ts"],
    equivalent: [
      { mutator: "ConditionalExpression", original: "!holdsUnchanging(value)", replacement: "false", why: "a document walked member by member is written as JSON.stringify writes it whole: only the speed differs" },
      { mutator: "ConditionalExpression", original: "prototype === null", replacement: "false", why: "a document without a prototype written whole by JSON.stringify is the same text as walked" },
    ],
  },
  {
    name: "secrets-canonical-path",
    mutate: "server/secrets/http/canonical-path.ts",
    tests: ["test/secrets/canonical-path-precedence.test.ts", "test/secrets/adversarial-paths.api.test.ts"],
    equivalent: [
      { mutator: "Regex", original: "/^[0-9a-fA-F]{2}$/", replacement: "/[0-9a-fA-F]{2}$/", why: "the slice tested is at most two characters" },
      { mutator: "Regex", original: "/^[0-9a-fA-F]{2}$/", replacement: "/^[0-9a-fA-F]{2}/", why: "the slice tested is at most two characters" },
      { mutator: "ConditionalExpression", original: '!raw.includes("%")', replacement: "false", why: "a shortcut: without escapes the decoding loop gives the same string" },
      { mutator: "StringLiteral", original: '"%"', replacement: '""', why: "a shortcut: the decoding loop gives the same string" },
      { mutator: "ConditionalExpression", original: 'path.startsWith("/") && !UNCLEAN.test(path)', replacement: "false", why: "a shortcut: path.Clean of a rooted path that is already clean gives it back" },
      { mutator: "ConditionalExpression", original: "UNENCODED.test(path)", replacement: "false", why: "a shortcut: encoding a path that holds nothing encodeURIComponent changes gives it back" },
    ],
  },
];

export interface ModuleScore {
  name: string;
  file: string;
  /** Stryker's score. */
  score: number;
  /** Surviving mutants matched by the module's reviewed-equivalent list. */
  equivalent: number;
  /** The score with those left out: what the 90% rule applies to. */
  reviewedScore: number;
  killed: number;
  timeout: number;
  survived: number;
  noCoverage: number;
  ignored: number;
  errors: number;
}

/** Stryker's mutation score: detected / (detected + undetected); ignored and erroneous mutants do not count. */
export function scoreOf(name: string, file: string, results: Pick<MutantResult, "status">[], equivalent = 0): ModuleScore {
  const count = (status: string) => results.filter((r) => r.status === status).length;
  const killed = count("Killed");
  const timeout = count("Timeout");
  const survived = count("Survived");
  const noCoverage = count("NoCoverage");
  const valid = killed + timeout + survived + noCoverage;
  return {
    name,
    file,
    score: valid === 0 ? 100 : ((killed + timeout) / valid) * 100,
    equivalent,
    reviewedScore: valid - equivalent === 0 ? 100 : ((killed + timeout) / (valid - equivalent)) * 100,
    killed,
    timeout,
    survived,
    noCoverage,
    ignored: count("Ignored"),
    errors: count("CompileError") + count("RuntimeError"),
  };
}

export function formatTable(scores: ModuleScore[]): string[] {
  return [
    "| module | file | score | without reviewed equivalents | killed | timeout | survived | no coverage | of these, reviewed equivalent | static (ignored) |",
    "|---|---|---|---|---|---|---|---|---|---|",
    ...scores.map(
      (s) =>
        `| ${s.name} | \`${s.file}\` | ${s.score.toFixed(1)}% | ${s.reviewedScore.toFixed(1)}% | ${s.killed} | ${s.timeout} | ${s.survived} | ${s.noCoverage} | ${s.equivalent} | ${s.ignored} |`,
    ),
  ];
}

function changedSince(ref: string): Set<string> {
  const out = execFileSync("git", ["diff", "--name-only", ref, "--"], { cwd: root, encoding: "utf8" });
  const untracked = execFileSync("git", ["ls-files", "--others", "--exclude-standard"], { cwd: root, encoding: "utf8" });
  return new Set([...out.split("\n"), ...untracked.split("\n")].filter(Boolean));
}

/** `file:from-to` for each function named by a pattern, from its first line to its closing brace. */
export function functionRanges(file: string, source: string, patterns: RegExp[]): string[] {
  const lines = source.split("\n");
  return patterns.map((pattern) => {
    const start = lines.findIndex((line) => pattern.test(line));
    if (start < 0) throw new Error(`${file}: no line matches ${pattern}`);
    let depth = 0;
    for (let i = start; i < lines.length; i++) {
      for (const ch of lines[i]!) depth += ch === "{" ? 1 : ch === "}" ? -1 : 0;
      if (depth === 0 && lines[i]!.includes("}")) return `${file}:${start + 1}-${i + 1}`;
    }
    throw new Error(`${file}: the function at line ${start + 1} does not end`);
  });
}

async function runModule(module: GuardModule, force: boolean): Promise<ModuleScore> {
  const file = module.mutate;
  const mutate = module.functions ? functionRanges(file, readFileSync(path.join(root, file), "utf8"), module.functions) : [file];
  mkdirSync(path.join(root, "reports", "mutation"), { recursive: true });
  const stryker = new Stryker({
    configFile: path.join(root, "stryker.config.mjs"),
    mutate,
    testFiles: module.tests.filter((t) => existsSync(path.join(root, t))),
    incrementalFile: `reports/mutation/${module.name}.incremental.json`,
    force,
  });
  const results = await stryker.runMutationTest();
  const equivalent = reviewedEquivalents(module, results);
  for (const e of equivalent) console.log(`  equivalent (reviewed): ${e.mutator} ${JSON.stringify(e.original)} -> ${JSON.stringify(e.replacement)}: ${e.why}`);
  return scoreOf(module.name, file, results, equivalent.length);
}

/** The surviving mutants of a run that the module's reviewed-equivalent list names. */
export function reviewedEquivalents(module: GuardModule, results: MutantResult[]): Equivalent[] {
  if (!module.equivalent?.length) return [];
  const source = readFileSync(path.join(root, module.mutate), "utf8").split("\n");
  const found: Equivalent[] = [];
  for (const r of results) {
    if (r.status !== "Survived" && r.status !== "NoCoverage") continue;
    const { start, end } = r.location;
    // The text the mutant replaced; positions read as zero-based, and as one-based in case.
    const slice = (base: number) => {
      const [sl, sc, el, ec] = [start.line - base, start.column - base, end.line - base, end.column - base];
      if (sl === el) return (source[sl] ?? "").slice(sc, ec);
      return [(source[sl] ?? "").slice(sc), ...source.slice(sl + 1, el), (source[el] ?? "").slice(0, ec)].join("\n");
    };
    const at = [0, 1].map((base) => ({ text: slice(base), line: source[start.line - base] ?? "" }));
    const match = module.equivalent.find(
      (e) => e.mutator === r.mutatorName && e.replacement === r.replacement && at.some(({ text, line }) => text === e.original && (e.line === undefined || line.includes(e.line))),
    );
    if (match) found.push(match);
  }
  return found;
}

async function main() {
  const args = process.argv.slice(2);
  const force = args.includes("--force");
  const changedAt = args.indexOf("--changed");
  const named = args.filter((a, i) => !a.startsWith("--") && (changedAt < 0 || i !== changedAt + 1));
  const unknown = named.filter((n) => !GUARD_MODULES.some((m) => m.name === n));
  if (unknown.length) {
    console.error(`unknown module(s): ${unknown.join(", ")}; known: ${GUARD_MODULES.map((m) => m.name).join(", ")}`);
    process.exit(2);
  }
  if (args.includes("--list")) {
    for (const m of GUARD_MODULES) {
      const where = m.functions && existsSync(path.join(root, m.mutate)) ? functionRanges(m.mutate, readFileSync(path.join(root, m.mutate), "utf8"), m.functions).join(" ") : m.mutate;
      console.log(`${m.name}: ${where} <- ${m.tests.join(", ")}`);
    }
    return;
  }
  // A module whose file is not there (yet) is left out, and said so.
  let selected = GUARD_MODULES.filter((m) => (named.length ? named.includes(m.name) : true));
  for (const m of selected.filter((m) => !existsSync(path.join(root, m.mutate)))) {
    console.log(`${m.name}: ${m.mutate} does not exist, skipped`);
  }
  selected = selected.filter((m) => existsSync(path.join(root, m.mutate)));
  if (changedAt >= 0) {
    const ref = args[changedAt + 1];
    if (!ref) {
      console.error("--changed needs a git ref");
      process.exit(2);
    }
    const changed = changedSince(ref);
    selected = selected.filter((m) => [m.mutate, ...m.tests].some((f) => changed.has(f)));
    if (!selected.length) {
      console.log(`no guard module or its tests changed since ${ref}`);
      return;
    }
  }
  const scores: ModuleScore[] = [];
  const failed: string[] = [];
  for (const module of selected) {
    console.log(`\n== ${module.name}: ${module.mutate}${module.functions ? ` (${module.functions.length} function(s))` : ""}`);
    // A run that breaks (a file removed while the sandbox is copied, say) is tried once more.
    for (let attempt = 1; ; attempt++) {
      try {
        scores.push(await runModule(module, force));
        break;
      } catch (error) {
        console.error(`${module.name}: Stryker failed (${(error as Error).message.split("\n")[0]})${attempt < 2 ? "; trying again" : ""}`);
        if (attempt >= 2) {
          failed.push(module.name);
          break;
        }
      }
    }
  }
  console.log("");
  for (const line of formatTable(scores)) console.log(line);
  const low = scores.filter((s) => s.reviewedScore < BREAK_AT);
  if (low.length) console.error(`\nbelow ${BREAK_AT}%: ${low.map((s) => `${s.name} ${s.reviewedScore.toFixed(1)}%`).join(", ")}`);
  if (failed.length) console.error(`\nnot measured (Stryker failed twice): ${failed.join(", ")}`);
  process.exitCode = low.length || failed.length ? 1 : 0;
}

if (import.meta.filename === process.argv[1] || process.argv[1]?.endsWith("scripts/mutation.ts")) await main();
