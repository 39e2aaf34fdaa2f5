// Rekey fixtures for the domain tests, kept apart from helpers/secrets.ts so that these fast unit
// tests (and the mutation runs that use them) load no server.
import type { RekeyConfig } from "../../server/secrets/rekey/rekey.ts";

/** A rekey attempt's configuration for the domain tests: 2 of 2 shares, no PGP keys, no backup, no verification. */
export const rekeyConfig = (overrides: Partial<RekeyConfig> = {}): RekeyConfig => ({
  secret_shares: 2,
  secret_threshold: 2,
  pgpKeys: [],
  backup: false,
  verificationRequired: false,
  ...overrides,
});
