/** findSecrets on the kinds of credential the preset misses or covers in part (own checks). */
import assert from "node:assert/strict";
import { findSecrets, redactSecrets } from "../../src/domain/secrets.ts";

const CASES: [string, string, string][] = [
  ["secretlint:aws", "the export job uses AKIAZ7Q4MB2XK9WLTN3R in staging", "AKIAZ7Q4MB2XK9WLTN3R"],
  [
    "high-entropy",
    "creds AKIAZ7Q4MB2XK9WLTN3R / q8Zk2+Vb7nQy1XwP0sLm4RtU9eHa3Fd6Jc5Gg/Ko",
    "q8Zk2+Vb7nQy1XwP0sLm4RtU",
  ],
  [
    "high-entropy",
    "the INTERNAL_API_TOKEN is 5e1b9c3f7a2d4e6f8a0b1c2d3e4f5a6b",
    "5e1b9c3f7a2d4e6f",
  ],
  ["github", "CI uses ghp_Zq8vP2mN4xT7wK1rB9cF3hJ6dL0sG5yE2 for previews", "ghp_Zq8vP2mN4x"],
  [
    "anthropic",
    "the evals run with sk-ant-api03-Zq8vP2mN4xT7wK1rB9cF3hJ6dL0sG5yE2Zq8vP2mN4xT7wK1rB9cF3hJ6dL0sG5yE2",
    "sk-ant-api03-Zq8v",
  ],
  ["npm", "publish with npm_Zq8vP2mN4xT7wK1rB9cF3hJ6dL0sG5yE2aB in CI", "npm_Zq8vP2mN4x"],
  [
    "jwt",
    "the service JWT eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4ifQ.SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c works",
    "SflKxwRJSMeKKF2QT4fw",
  ],
  ["google-api-key", "use AIzaSyA1bC2dE3fG4hI5jK6lM7nO8pQ9rS0tUvW for maps", "AIzaSyA1bC2dE3fG"],
  [
    "stripe-webhook-secret",
    "verify with whsec_AbCdEfGhIjKlMnOpQrStUvWxYz012345 in prod",
    "whsec_AbCdEf",
  ],
  [
    "openai",
    "sk-proj-Ab3dEf6hIj9kLm2nOp5qRs8tUv1wXy4zAb7cDe0fGh3iJk6lMn9o in the CI",
    "sk-proj-Ab3dEf",
  ],
  ["bearer", "curl -H 'Authorization: Bearer 3f9a1c0b7e2d4f6a8b9c0d1e2f3a4b5c'", "3f9a1c0b7e2d"],
  [
    "private-key",
    "-----BEGIN EC PRIVATE KEY-----\nMHcCAQEEIBkg4LVWM9nuwNSk3yByxZpYRTBnVJk5oKEC\n-----END EC PRIVATE KEY-----",
    "MHcCAQEEIBkg4LVW",
  ],
  ["url-password", "cache is redis://:hunter2pass@cache.internal:6379", "hunter2pass"],
  ["password", "the password for staging is Winter2024!", "Winter2024"],
  ["password", "the password is correcthorsebatterystaple", "correcthorse"],
  ["assignment", "db pass: Winter2024! for the replica", "Winter2024"],
  ["password", "the pw is s3cr3tPassw0rd", "s3cr3tPassw0rd"],
  // A wifi network's key, a pre-shared key, a shared secret: passwords by other names.
  [
    "password",
    "the probes join the lab SSID, psk is Cmvhdv111%INps, keep it out of net.py",
    "Cmvhdv111",
  ],
  ["password", "the wpa key is Xk29!ffPq2 on the guest network", "Xk29!ffPq2"],
  ["password", "the shared secret is Qw8!zzTT91 for the radius server", "Qw8!zzTT91"],
  ["assignment", "WIFI_PSK=Cmvhdv111%INps in secrets.py", "Cmvhdv111"],
  ["password", "pre-shared key: Zm41!kkQ0pw for the ipsec tunnel", "Zm41!kkQ0pw"],
  [
    "high-entropy",
    "the internal token is 3f9a1c0b7e2d4f6a8b9c0d1e2f3a4b5c6d7e8f90",
    "3f9a1c0b7e2d4f6a",
  ],
];

Deno.test("findSecrets: formats and phrasings the preset has no rule for", async () => {
  for (const [kind, text, secret] of CASES) {
    const r = await redactSecrets(text);
    assert.ok(r.findings.some((f) => f.kind === kind), `${kind}: ${JSON.stringify(r.findings)}`);
    assert.ok(!r.text.includes(secret), r.text);
  }
});

Deno.test("findSecrets: a complete private key block is secretlint's privatekey", async () => {
  const body = "MIIEowIBAAKCAQEAu1SU1LfVLPHCozMxH2Mo4lgOEePzNm0tRgeLezV6ffAt0gunVTLw7onLRnrq0/Iz" +
    "W7yWR7QkrmBL7jTKEn5u+qKhbwKfBstIs+bMY2Zkp18gnTxKLxoS2tFczGkPLPgizskuemMghRniWaoLcyehkd3q";
  const text = `-----BEGIN RSA PRIVATE KEY-----\n${body.slice(0, 64)}\n${
    body.slice(64)
  }\n-----END RSA PRIVATE KEY-----`;
  const f = await findSecrets(text);
  assert.equal(f.length, 1);
  assert.equal(f[0].kind, "secretlint:privatekey");
  assert.equal(f[0].start, 0);
});

Deno.test("findSecrets: words about passwords and markers are not secrets", async () => {
  for (
    const clean of [
      "passwords must be at least 12 characters",
      "the password is stored in Vault",
      "password hashing uses argon2id",
      "the token endpoint needs rate limiting",
      "CI should use [secret removed: secretlint:1password] for previews",
      "password: [secret removed: password]",
      // Where a key lives is not the key: paths and file names made of words.
      "the signing key is keys/release-ed25519-v2.pem, the HSM holds the production one",
      "the deploy key is ~/.ssh/deploy_staging_ed25519.pub on the runner",
      "the api token comes from config/secrets/staging-token.enc at start",
      // "pass" the verb: no password follows it.
      "Migrations must pass strong_migrations; add indexes with `algorithm: :concurrently`",
      "every PR must pass check_formatting_and_types before review",
      "we pass RAILS_MASTER_KEY_FILE to the container, never the key",
      // Where a wifi key or a shared secret lives is not the key.
      "the psk lives in secrets.py, which is gitignored",
      "rotate the wifi key every quarter",
      "shared secrets go in the vault, never in the repo",
    ]
  ) assert.deepEqual(await findSecrets(clean), [], clean);
});

Deno.test("findSecrets: a key with slashes is still one (its parts are not words)", async () => {
  const text = "the secret key is Zq8vP2mN4x/T7wK1rB9cF3/hJ6dL0sG5yE2aB9kQ";
  const r = await redactSecrets(text);
  assert.ok(r.findings.some((f) => f.kind === "high-entropy"), JSON.stringify(r.findings));
  assert.ok(!r.text.includes("Zq8vP2mN4x"), r.text);
});

Deno.test("findSecrets: a module's name near a key's name is not a secret", async () => {
  for (
    const clean of [
      // Where the key is set, then the code's modules (Elixir, .NET, Python classes).
      "Monitoring: AppSignal (APPSIGNAL_PUSH_API_KEY); metrics in ShopfrontWeb.Telemetry; dashboard at /admin.",
      "the api key is read by MyAppWeb.ApiKeyPlug.Verify on every request",
      "STRIPE_API_KEY goes through Payments.StripeClient.Config, never the env directly",
    ]
  ) assert.deepEqual(await findSecrets(clean), [], clean);
  // A generated value beside the same names is still one.
  for (
    const secret of [
      "APPSIGNAL_PUSH_API_KEY=Zq8vP2mN4xT7wK1rB9cF3hJ6dL0sG5yE",
      "the api key is wJalrXUtnFEMI.K7MDENGbPxRfiCYEXAMPLEKEY",
      "token: eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U",
    ]
  ) assert.ok((await findSecrets(secret)).length > 0, secret);
});
