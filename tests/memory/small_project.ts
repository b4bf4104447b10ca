/**
 * A small project's memories, of the kind a coding agent keeps (rules, decisions, facts about
 * a repository), with prompts about them and prompts about nothing stored: the fixture of
 * the confidence tests.
 */
import type { MemoryType } from "../../src/memory/types.ts";

/** The project's memories. */
export const MEMORIES: { content: string; type: MemoryType }[] = [
  {
    type: "decision",
    content:
      "We chose PostgreSQL over MySQL for the orders database because we need JSONB and partial indexes",
  },
  { type: "fact", content: "The staging database runs on port 5433; production uses 5432" },
  { type: "rule", content: "Always run npm test before committing" },
  { type: "rule", content: "Never force-push to the main branch; open a pull request instead" },
  {
    type: "fact",
    content: "We use pnpm, not npm or yarn, for installing packages in this monorepo",
  },
  { type: "fact", content: "The web frontend is built with Vite and React 19" },
  {
    type: "decision",
    content: "Invoices are rendered to PDF by the pdf-worker service, never in the API process",
  },
  { type: "fact", content: "The API server reads its configuration from config/app.toml at start" },
  {
    type: "rule",
    content: "Database migrations must be backwards compatible with the previous release",
  },
  {
    type: "fact",
    content: "CI runs on GitHub Actions; the workflow file is .github/workflows/ci.yml",
  },
  {
    type: "decision",
    content: "Authentication uses short-lived JWT access tokens and rotating refresh tokens",
  },
  { type: "fact", content: "Redis caches the product catalogue for five minutes" },
  { type: "rule", content: "Log messages must never contain passwords, tokens or card numbers" },
  { type: "fact", content: "The mobile app talks to the API through the GraphQL gateway" },
  { type: "decision", content: "We deploy to Kubernetes with Helm charts kept in ops/helm" },
  { type: "fact", content: "Feature flags are managed in LaunchDarkly" },
  { type: "rule", content: "Every public function needs a docstring and a unit test" },
  {
    type: "fact",
    content: "The search page uses Elasticsearch 8 with a custom analyzer for product names",
  },
  {
    type: "decision",
    content: "Emails are sent through Postmark; marketing emails go through Mailchimp",
  },
  {
    type: "fact",
    content: "Background jobs run on Sidekiq with three queues: default, mailers and reports",
  },
  { type: "rule", content: "Format TypeScript with Prettier at a print width of 100" },
  { type: "fact", content: "The error tracker is Sentry; alerts go to the #oncall Slack channel" },
  { type: "decision", content: "Money amounts are stored as integer cents, never as floats" },
  { type: "fact", content: "Time zones: store timestamps in UTC and convert in the browser" },
  { type: "rule", content: "Branch names start with the ticket number, like ABC-123-short-title" },
  {
    type: "fact",
    content: "The design system's components live in packages/ui and are documented in Storybook",
  },
  {
    type: "decision",
    content: "We picked Stripe for card payments and keep PayPal for legacy customers only",
  },
  { type: "fact", content: "Load tests are written with k6 and live in tests/load" },
  { type: "rule", content: "Pull requests need one approving review before merging" },
  { type: "fact", content: "The data warehouse is BigQuery; nightly exports run at 02:00 UTC" },
  {
    type: "decision",
    content: "Images are resized on upload by a Lambda function and stored in S3",
  },
  {
    type: "fact",
    content: "Local development starts with docker compose up from the repository root",
  },
  { type: "rule", content: "Do not add new dependencies without asking the team first" },
  { type: "fact", content: "The rate limiter allows 100 requests per minute per API key" },
  {
    type: "decision",
    content: "Dark mode follows the operating system's setting and can be overridden in settings",
  },
];

/** Prompts about a stored memory, with a fragment of the memory each should bring. */
export const IN_TOPIC: { prompt: string; expect: string }[] = [
  { prompt: "postgres or mysql?", expect: "We chose PostgreSQL" },
  { prompt: "why did we pick postgres for orders?", expect: "We chose PostgreSQL" },
  { prompt: "which port does the staging database use?", expect: "port 5433" },
  { prompt: "Can I use yarn to install a package here?", expect: "We use pnpm" },
  { prompt: "where are invoices rendered as PDF?", expect: "pdf-worker" },
  { prompt: "how is the API server configured?", expect: "config/app.toml" },
  { prompt: "what should I run before committing my change?", expect: "npm test" },
  { prompt: "can I force push to main?", expect: "force-push" },
  { prompt: "how long does Redis cache the catalogue?", expect: "Redis caches" },
  { prompt: "how do we deploy to kubernetes?", expect: "Helm charts" },
  { prompt: "where do the helm charts live?", expect: "Helm charts" },
  { prompt: "which payment provider handles card payments?", expect: "Stripe" },
  { prompt: "how should I store money amounts, floats?", expect: "integer cents" },
  { prompt: "where do sentry alerts go?", expect: "Sentry" },
  { prompt: "which queues does sidekiq have?", expect: "Sidekiq" },
  { prompt: "what print width does prettier use?", expect: "Prettier" },
  { prompt: "how do I start local development with docker?", expect: "docker compose" },
  { prompt: "what is the API rate limit per key?", expect: "100 requests per minute" },
  { prompt: "when do the nightly BigQuery exports run?", expect: "BigQuery" },
  { prompt: "how are uploaded images resized?", expect: "Lambda" },
];

/** Prompts about nothing stored in the project. */
export const OFF_TOPIC: string[] = [
  "how should I use git rebase",
  "write a haiku about autumn leaves",
  "explain the difference between TCP and UDP",
  "what is the capital of Australia?",
  "how do I reverse a linked list in Python?",
  "summarize the plot of Hamlet",
  "convert this recipe from cups to grams",
  "what does the Rust borrow checker do?",
  "recommend a good book on distributed systems",
  "how do I center a div with flexbox",
  "what's the time complexity of quicksort?",
  "translate 'good morning' into Japanese",
  "how do vaccines train the immune system?",
  "why is the sky blue?",
  "help me plan a trip to Lisbon",
  "what is a monad in Haskell?",
  "explain how HTTPS certificates are validated",
  "write a regular expression for email addresses",
  "how does garbage collection work in Java?",
  "what are good stretches for back pain?",
  "compare vim and emacs keybindings",
];
