/**
 * Scripts of the holdout split's real Claude Code transcripts (run by
 * tasks/capture_real_sessions.ts like those of sessions_real.ts): written on 2026-11-29 with
 * the hand-written holdout sessions, by a helper that did not see the extractor.
 *
 * @module
 */
import { D, type fakeSecret as FakeSecret, N, type Rng } from "./build.ts";
import { type RealScript, ROOT } from "./sessions_real.ts";

const bash = (command: string, description: string) => ({
  tool: { name: "Bash", input: { command, description } },
});
const readF = (project: string, path: string) => ({
  tool: { name: "Read", input: { file_path: `${ROOT}/${project}/${path}` } },
});
const editF = (project: string, path: string, old_string: string, new_string: string) => ({
  tool: {
    name: "Edit",
    input: { file_path: `${ROOT}/${project}/${path}`, old_string, new_string },
  },
});
const writeF = (project: string, path: string, content: string) => ({
  tool: { name: "Write", input: { file_path: `${ROOT}/${project}/${path}`, content } },
});
const grepT = (pattern: string) => ({
  tool: { name: "Grep", input: { pattern, output_mode: "files_with_matches" } },
});
const say = (text: string) => ({ text });

const PYLIB_FILES = {
  "pyproject.toml":
    '[project]\nname = "pyquantiles"\nversion = "0.9.0"\nrequires-python = ">=3.9"\ndependencies = []\n\n[project.optional-dependencies]\nnumpy = ["numpy>=1.22"]\n\n[build-system]\nrequires = ["hatchling"]\nbuild-backend = "hatchling.build"\n',
  "src/pyquantiles/__init__.py":
    'from .ckms import CKMS\nfrom .kll import KLL\nfrom .tdigest import TDigest\n\n__all__ = ["CKMS", "KLL", "TDigest", "quantile"]\n\n\ndef quantile(xs, q, method="tdigest"):\n    """Estimate the q-quantile of xs with the given sketch."""\n    sketch = {"tdigest": TDigest, "kll": KLL, "ckms": CKMS}[method]()\n    for x in xs:\n        sketch.update(x)\n    return sketch.quantile(q)\n',
  "src/pyquantiles/tdigest.py":
    "class TDigest:\n    def __init__(self, compression=100.0):\n        self.compression = compression\n",
  "src/pyquantiles/kll.py": "class KLL:\n    def __init__(self, k=200):\n        self.k = k\n",
  "src/pyquantiles/ckms.py":
    "class CKMS:\n    def __init__(self, eps=0.001):\n        self.eps = eps\n",
  "tests/test_api.py":
    "from pyquantiles import quantile\n\n\ndef test_median():\n    assert abs(quantile(range(1001), 0.5) - 500) < 5\n",
  "CONTRIBUTING.md":
    "# Contributing\n\nRun the tests with `python -m pytest -q` and the doctests with\n`python -m pytest -q --doctest-modules src`.\n",
};

const GAME_FILES = {
  "go.mod": "module github.com/tomasr/arena-server\n\ngo 1.23\n",
  "cmd/arena/main.go":
    'package main\n\nimport "flag"\n\nfunc main() {\n\taddr := flag.String("addr", ":7777", "UDP listen address")\n\tflag.Parse()\n\trun(*addr)\n}\n',
  "replay/upload.go":
    'package replay\n\n// Upload stores a finished match replay.\nfunc Upload(matchID string, data []byte) error {\n\treturn store.Put("replays/"+matchID+".bin", data)\n}\n',
  ".github/workflows/release.yml":
    "on:\n  push:\n    tags: ['v*']\njobs:\n  build:\n    runs-on: ubuntu-latest\n    steps:\n      - uses: actions/checkout@v4\n      - run: go build ./cmd/arena\n",
};

const RAILS_FILES = {
  "Gemfile": 'source "https://rubygems.org"\n\ngem "rails", "~> 7.1.3"\ngem "sidekiq", "~> 7.2"\n',
  "app/jobs/appointment_reminder_job.rb":
    "class AppointmentReminderJob\n  include Sidekiq::Job\n  sidekiq_options queue: :critical\n\n  def perform(appointment_id)\n    appointment = Appointment.find(appointment_id)\n    SmsGateway.deliver(appointment.patient.phone, message_for(appointment))\n  end\nend\n",
  "app/models/clinic.rb": "class Clinic < ApplicationRecord\n  has_many :appointments\nend\n",
};

/** The holdout's real scripts; `r` and `fs` make the fake secrets (deterministic). */
export function HOLDOUT_REAL(r: Rng, fs: typeof FakeSecret): RealScript[] {
  const pat = fs.githubPat(r);
  return [
    {
      id: "hr01-pyquantiles-confirmed-tests",
      split: "holdout",
      project: "pyquantiles",
      style: "real CLI, a deprecation rule inside a request, an agent claim confirmed, a thank-you",
      files: PYLIB_FILES,
      turns: [
        {
          prompt:
            "rename the `method` argument of quantile() to `sketch`. we never break the public API without a deprecation cycle though, so keep `method` working with a DeprecationWarning for one minor release",
          labels: [
            N("request"),
            D(
              "rule",
              "project",
              "pyquantiles never breaks its public API without a deprecation cycle: the old form keeps working with a DeprecationWarning for one minor release",
            ),
          ],
          steps: [
            readF("pyquantiles", "src/pyquantiles/__init__.py"),
            editF(
              "pyquantiles",
              "src/pyquantiles/__init__.py",
              'def quantile(xs, q, method="tdigest"):\n    """Estimate the q-quantile of xs with the given sketch."""\n    sketch = {"tdigest": TDigest, "kll": KLL, "ckms": CKMS}[method]()',
              'def quantile(xs, q, sketch="tdigest", *, method=None):\n    """Estimate the q-quantile of xs with the given sketch."""\n    if method is not None:\n        import warnings\n\n        warnings.warn("quantile(method=...) is deprecated, use sketch=", DeprecationWarning, stacklevel=2)\n        sketch = method\n    sketch = {"tdigest": TDigest, "kll": KLL, "ckms": CKMS}[sketch]()',
            ),
            say(
              "`quantile()` takes `sketch=` now; `method=` still works and warns with a DeprecationWarning.",
            ),
          ],
        },
        {
          prompt: "how do I run the tests here?",
          labels: [N("question")],
          steps: [
            bash("cat CONTRIBUTING.md", "Show the contributing guide"),
            say(
              "CONTRIBUTING.md says: `python -m pytest -q` for the tests and `python -m pytest -q --doctest-modules src` for the doctests. So a change counts as tested only when both pass. Is that how you always run them?",
            ),
          ],
        },
        {
          prompt: "yes, always both",
          labels: [],
          confirms: {
            kind: "rule",
            scope: "project",
            text:
              "pyquantiles changes are tested with both `python -m pytest -q` and the doctests (`python -m pytest -q --doctest-modules src`)",
          },
          steps: [say("Understood; I'll run both from now on.")],
        },
        {
          prompt: "cool, thanks",
          labels: [N("request")],
          steps: [say("You're welcome.")],
        },
      ],
    },
    {
      id: "hr02-arena-pat-replays",
      split: "holdout",
      project: "arena-server",
      style: "real CLI, a GitHub token pasted in a request; a storage fact; a one-off",
      files: GAME_FILES,
      turns: [
        {
          prompt:
            `the release workflow can't push the docker image, I made a new token for it: ${pat}. can you put it in the workflow?`,
          labels: [N("request"), N("secret")],
          secrets: [pat],
          steps: [
            readF("arena-server", ".github/workflows/release.yml"),
            say(
              "I won't write a token into the workflow file: it would be in the repository. Add it as a repository secret (`gh secret set GHCR_TOKEN`) and the workflow can read `${{ secrets.GHCR_TOKEN }}`. The token is in this conversation now, so consider rotating it.",
            ),
          ],
        },
        {
          prompt:
            "fair. unrelated: replays are uploaded to the gcs bucket arena-replays and kept 14 days, then a lifecycle rule deletes them. put that in a comment on Upload",
          labels: [
            D(
              "fact",
              "project",
              "arena-server match replays go to the GCS bucket arena-replays and are deleted after 14 days by a lifecycle rule",
            ),
            N("request"),
          ],
          steps: [
            editF(
              "arena-server",
              "replay/upload.go",
              "// Upload stores a finished match replay.",
              "// Upload stores a finished match replay in the GCS bucket arena-replays,\n// where a lifecycle rule deletes it after 14 days.",
            ),
            say("Comment added on `Upload`."),
          ],
        },
        {
          prompt:
            "for today's playtest build skip the race detector, it's too slow on the test box",
          labels: [N("one-off")],
          steps: [
            bash("grep -rn race .github || true", "Look for the race flag in CI"),
            say(
              "CI doesn't pass `-race` today, so the playtest build is already without the race detector.",
            ),
          ],
        },
      ],
    },
    {
      id: "hr03-clinic-private-quiet-hours",
      split: "holdout",
      project: "clinic-booking",
      style: "real CLI, a private block, a durable rule stated after a question, a hypothesis",
      files: RAILS_FILES,
      turns: [
        {
          prompt:
            "<private>A patient complained to the Lisbon clinic manager that she got a reminder at 3am and is threatening to go to the regulator.</private> when do the reminder texts go out?",
          labels: [N("private"), N("question")],
          steps: [
            readF("clinic-booking", "app/jobs/appointment_reminder_job.rb"),
            say(
              "`AppointmentReminderJob` sends as soon as it runs, 24h before the appointment, with no check of the local hour. An appointment at 03:00 gets its text at 03:00 the day before.",
            ),
          ],
        },
        {
          prompt: "I guess it's the night-shift physio bookings that cause it?",
          labels: [N("hypothesis")],
          steps: [
            grepT("night"),
            say(
              "Nothing in the code mentions night shifts; any appointment before 08:00 would do it.",
            ),
          ],
        },
        {
          prompt:
            "ok. rule for this app: no patient SMS between 21:00 and 08:00 in the clinic's local time, ever. hold them until 08:00. implement that",
          labels: [
            D(
              "rule",
              "project",
              "clinic-booking sends no patient SMS between 21:00 and 08:00 clinic local time; hold them until 08:00",
            ),
            N("request"),
          ],
          steps: [
            writeF(
              "clinic-booking",
              "app/services/quiet_hours.rb",
              "class QuietHours\n  START = 21\n  FINISH = 8\n\n  def self.call(time, zone)\n    local = time.in_time_zone(zone)\n    return time if local.hour >= FINISH && local.hour < START\n    next_morning = local.hour >= START ? local.tomorrow : local\n    next_morning.change(hour: FINISH)\n  end\nend\n",
            ),
            say(
              "Added `QuietHours.call(time, zone)`, which moves a send time in 21:00–08:00 local to 08:00; the job will reschedule itself with `perform_at` when it falls inside.",
            ),
          ],
        },
      ],
    },
  ];
}
