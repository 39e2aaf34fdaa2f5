// The npm names of the client packages (packages/<api>-client). Pure, so that the docs samples can
// name them without loading the package builder.
import type { ApiInfo } from "./apis.ts";

export const PACKAGE_SCOPE = "@contract-first";
export const packageName = (api: Pick<ApiInfo, "name">) => `${PACKAGE_SCOPE}/${api.name}-client`;
