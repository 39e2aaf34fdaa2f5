// ARNs and JSON policy documents, as the engine and the simulated provider read them. Pure.

export interface Arn {
  partition: string;
  service: string;
  region: string;
  account: string;
  resource: string;
}

/** The parts of an ARN (`arn:<partition>:<service>:<region>:<account>:<resource>`), as the provider SDK splits it. */
export function parseArn(text: string): Arn | { error: string } {
  if (!text.startsWith("arn:")) return { error: "arn: invalid prefix" };
  const sections = text.split(":");
  if (sections.length < 6) return { error: "arn: not enough sections" };
  const [, partition, service, region, account, ...resource] = sections as [string, string, string, string, string, ...string[]];
  return { partition, service, region, account, resource: resource.join(":") };
}

/**
 * Why the text is not a managed policy's ARN, as the real engine checks `permissions_boundary_arn`
 * (builtin/logical/aws/path_roles.go, validateAWSManagedPolicy): only that it splits into an ARN,
 * that the service is `iam` and that the resource starts with `policy/`.
 */
export function managedPolicyArnProblem(text: string): string | undefined {
  const arn = parseArn(text);
  if ("error" in arn) return arn.error;
  if (arn.service !== "iam") return `expected a service of iam but got ${arn.service}`;
  if (!arn.resource.startsWith("policy/")) return `expected a resource type of policy but got ${arn.resource}`;
  return undefined;
}

/** Why the text is not the ARN of a managed policy (`arn:aws:iam::<account or aws>:policy/<path/><name>`), or undefined. */
export function policyArnProblem(text: string): string | undefined {
  const arn = parseArn(text);
  if ("error" in arn) return arn.error;
  if (arn.service !== "iam") return `expected a service of iam but got ${arn.service}`;
  if (!arn.resource.startsWith("policy/")) return `expected a resource type of policy but got ${arn.resource}`;
  if (!/^(\d{12}|aws)$/.test(arn.account)) return `expected a 12-digit account id or "aws" but got ${JSON.stringify(arn.account)}`;
  if (!/^policy\/(.*\/)?[\w+=,.@-]{1,128}$/.test(arn.resource)) return `invalid policy name in ${arn.resource}`;
  return undefined;
}

/** The name at the end of an IAM ARN's resource (`role/ops/deploy` → `deploy`). */
export function arnResourceName(arn: Arn): string {
  return arn.resource.slice(arn.resource.lastIndexOf("/") + 1);
}

/**
 * JSON text without the whitespace between tokens, keys and numbers exactly as given (Go's
 * json.Compact); undefined when the text is not JSON.
 */
export function compactJson(text: string): string | undefined {
  try {
    JSON.parse(text);
  } catch {
    return undefined;
  }
  let out = "";
  let inString = false;
  let escaped = false;
  for (const char of text) {
    if (inString) {
      out += char;
      if (escaped) escaped = false;
      else if (char === "\\") escaped = true;
      else if (char === '"') inString = false;
    } else if (char === '"') {
      inString = true;
      out += char;
    } else if (char !== " " && char !== "\t" && char !== "\n" && char !== "\r") {
      out += char;
    }
  }
  return out;
}

/**
 * Several policy documents as one: their statements in order, version `2012-10-17` (the real
 * engine's combinePolicyDocuments). Empty documents are skipped.
 */
export function combinePolicyDocuments(documents: string[]): string {
  const statements: unknown[] = [];
  for (const text of documents) {
    if (text === "") continue;
    const statement = (JSON.parse(text) as { Statement?: unknown }).Statement;
    if (Array.isArray(statement)) statements.push(...statement);
    else if (statement !== undefined && statement !== null) statements.push(statement);
  }
  return JSON.stringify({ Version: "2012-10-17", Statement: statements });
}
