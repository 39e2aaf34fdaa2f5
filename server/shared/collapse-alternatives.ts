// One value that matches none of the alternatives of an anyOf (or oneOf) is reported by the
// alternatives of its own type only: `900` against `anyOf: [{type: number, maximum: 100}, {type:
// string}, {type: "null"}]` is `must be <= 100`, not also `must be string` and `must be null`; when
// no alternative has the value's type, one problem names the types that would do. Ajv (allErrors)
// reports an alternative's problems just before the union's own, at or under the union's place, and
// an alternative of another type fails with a type problem at that very place. The same rule for
// the reference servers' validator problems and for the contract checker's ajv errors: each gives
// its own view of a problem. Pure.

export interface ProblemView<T> {
  /** Whether the problem is a union's: no alternative matched. */
  isUnion(problem: T): boolean;
  /** Whether `problem` is about the union's value or a value inside it. */
  inside(problem: T, union: T): boolean;
  /** Whether `problem` is a type mismatch of the union's value itself. */
  isTypeMismatchOf(problem: T, union: T): boolean;
  /** The types a type mismatch asks for (none for another problem). */
  typesAskedBy(problem: T): string[];
  /** The union's problem said as the types that would do (`must be string,number or null`). */
  asTypes(union: T, types: string[], message: string): T;
}

export function collapseAlternatives<T>(problems: readonly T[], view: ProblemView<T>): T[] {
  const out: T[] = [];
  for (const problem of problems) {
    if (!view.isUnion(problem)) {
      out.push(problem);
      continue;
    }
    let start = out.length;
    while (start > 0 && view.inside(out[start - 1]!, problem)) start--;
    const branches = out.splice(start);
    const ofItsType = branches.filter((branch) => !view.isTypeMismatchOf(branch, problem));
    if (ofItsType.length > 0) {
      out.push(...ofItsType);
      continue;
    }
    const types = [...new Set(branches.flatMap((branch) => view.typesAskedBy(branch)))];
    out.push(types.length > 1 ? view.asTypes(problem, types, `must be ${types.slice(0, -1).join(",")} or ${types.at(-1)}`) : problem);
  }
  return out;
}
