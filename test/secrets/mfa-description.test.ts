// The push-MFA methods in the service description: five operations of the identity store (not an
// engine: no mount), each with its capabilities, the namespace header and a handler.
import { describe, expect, it } from "vitest";
import { loadBundle } from "../../server/shared/openapi.ts";
import { expectOperationsDescribed, type ExpectedOperation } from "../helpers/secrets-description.ts";

const bundle = loadBundle("secrets");
type Json = Record<string, any>;

const expected: ExpectedOperation[] = [
  ["/identity/mfa/method/pushmfa", "post", "createPushMfaMethod", ["update"]],
  ["/identity/mfa/method/pushmfa/{id}", "post", "updatePushMfaMethod", ["update"]],
  ["/identity/mfa/method/pushmfa/{id}", "get", "readPushMfaMethod", ["read"]],
  ["/identity/mfa/method/pushmfa/{id}", "delete", "deletePushMfaMethod", ["delete"]],
  ["/identity/mfa/method/pushmfa", "get", "listPushMfaMethods", ["list"]],
];

describe("the push-MFA description", () => {
  it("describes the five operations with their capabilities, the namespace header and a handler", () => {
    expectOperationsDescribed(bundle, expected);
    for (const [template, method] of expected) {
      const item = bundle.paths[template] as Json;
      expect(item).not.toHaveProperty("x-secrets-engine");
      expect(item[method].responses).toHaveProperty("403");
      const parameters = [...(item.parameters ?? []), ...(item[method].parameters ?? [])].map((p: Json) =>
        p.$ref ? (bundle.components as Json).parameters[p.$ref.split("/").pop()] : p,
      );
      expect(parameters.map((p: Json) => p.name)).toContain("X-Secrets-Namespace");
    }
    expect((bundle.paths["/identity/mfa/method/pushmfa"] as Json).get["x-http-method"]).toBe("LIST");
  });

  it("reads back the seed's shape, secret_key included, with type pushmfa", () => {
    const schemas = (bundle.components as Json).schemas;
    const settings = schemas.PushMfaMethodSettings;
    expect(settings.required).toEqual(expect.arrayContaining(["api_hostname", "id", "integration_key", "pushinfo", "type", "username_format", "use_passcode"]));
    expect(settings.properties.type.const).toBe("pushmfa");
    const [base, secret] = schemas.PushMfaMethod.allOf;
    expect(base.$ref).toBe("#/components/schemas/PushMfaMethodSettings");
    expect(secret.required).toEqual(["secret_key"]);
    expect(schemas.PushMfaMethod.unevaluatedProperties).toBe(false);
    // A list's key_info has the settings without secret_key, and nothing else.
    expect(schemas.PushMfaMethodListed).toMatchObject({ allOf: [{ $ref: "#/components/schemas/PushMfaMethodSettings" }], unevaluatedProperties: false });
    expect(settings.properties).not.toHaveProperty("secret_key");
  });
});
