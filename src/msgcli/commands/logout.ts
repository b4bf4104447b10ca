/**
 * `msgcli logout`: removes the credentials file (and any leftover temp file of an
 * interrupted write) under the exclusive credentials lock. The refresh token is not revoked:
 * the OAuth protocol msgcli signs in with documents no revocation endpoint (only the
 * authorize and token endpoints), and logout says so. A running `msgcli serve` drops the
 * token at its next read of the file (within a minute).
 * @module
 */

import { loadMsgConfig } from "../../msg/config.ts";
import { CredentialStore } from "../../msg/credentials.ts";
import type { ParsedCommand } from "../args.ts";
import type { CliIO } from "../io.ts";

/** What logout says about revocation. */
export const NOT_REVOKED =
  "The refresh token was not revoked: the sign-in protocol msgcli uses documents no " +
  "revocation endpoint. The copy on this machine is gone.";

/** Runs `msgcli logout`; returns the exit code. */
export async function logout(p: ParsedCommand, io: CliIO): Promise<number> {
  const cfg = loadMsgConfig(io.env, p.proxyFlag);
  const removed = await new CredentialStore(cfg.credentialsPath).remove();
  if (!removed) {
    await io.stderr(`Not logged in: no credentials at ${cfg.credentialsPath}.\n`);
    return 0;
  }
  await io.stderr(
    `Logged out: removed ${cfg.credentialsPath}.\n${NOT_REVOKED}\n` +
      `A running "msgcli serve" stops using the token within a minute.\n`,
  );
  return 0;
}
