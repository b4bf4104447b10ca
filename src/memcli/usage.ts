/**
 * Usage texts of `memcli` and its commands (kept apart so that `--help` loads nothing else).
 * @module
 */

/** Top-level usage. */
export const USAGE =
  `memcli: host CLI of the Mneme memory service (talks to the Admin API over HTTP)

Usage: memcli <command> [flags]

Stack:
  setup        start the admin daemon in the background (first-time setup)
  start        start the memory service in the background (nothing when it runs)
  stop         stop the memory service, whoever started it
  restart      stop, then start
  status       show whether the daemon runs, its health, counts and data size
  uninstall    stop the daemon, keep the data (--purge deletes DATA_DIR after confirmation)

Agents:
  connect      connect Claude Code: service, start at login, hooks, MCP server, check
  disconnect   undo connect: remove exactly what it added
  bootstrap    print the session-start Markdown (bootstrap memories) for a project
  recall       print the memories relevant to a text (or a prompt, as a hook) with their ids
  capture      hand a session over for automatic capture (as a Stop/PreCompact/SessionEnd hook)
  inbox        review captured memories: list, accept, reject, edit
  hooks        install, remove or show Mneme's Claude Code hooks (install|uninstall|status)

Memories (add, search and list work in the repository's project; --global opts out):
  add          store a memory (--replace supersedes the one it contradicts; --pin: session start)
  search       semantic search
  list         list memories (table, or --json)
  get          show one memory
  update       change a memory's content
  replace      store a new memory and supersede an old one, in one step
  forget       delete memories (several: --yes or a confirmation)
  export       write all memories as JSON
  import       load memories from a JSON file (re-embedded with the current provider)
  reembed      re-embed every memory with the configured embedder (resumable)
  expansion    show or remove the search phrases a model wrote for memories (show|clear|redo)
  backup       copy the embedded database to a file while the daemon runs

Other:
  version      print the version
  help [cmd]   show help (also: memcli <command> --help)

Environment: MEMORY_API_URL (Admin API, default: the daemon setup started, else
ADMIN_HOST:ADMIN_PORT, http://127.0.0.1:4200), ADMIN_API_KEY, DATA_DIR, ADMIN_PORT, ADMIN_HOST, DATABASE_URL,
EMBEDDING_PROVIDER. Exit codes: 0 ok, 1 error, 2 status: running but degraded.
`;

/** Usage of each command. */
export const COMMAND_USAGE: Record<string, string> = {
  setup: `Usage: memcli setup [--port N] [--database-url URL] [--embedding-provider P] [--timeout S]

Creates DATA_DIR (db/, models/, run/, logs/), starts the admin daemon in the background
(pid in run/admin.pid, log in logs/admin.log), waits until /healthz answers and prints the
URL, the data directory, the embedder and the MCP client configuration. When the daemon is
already running it says so and changes nothing.

Flags:
  --port N                   Admin API port (default: ADMIN_PORT, else 4200)
  --database-url URL         server Postgres with pgvector (default: DATABASE_URL, else the
                             embedded database in DATA_DIR/db)
  --embedding-provider P     auto | builtin | ollama | openai (default: EMBEDDING_PROVIDER, else auto)
  --timeout S                seconds to wait for the daemon to become healthy (default 120)
  -h, --help                 show this help
`,
  start: `Usage: memcli start [--port N] [--database-url URL] [--embedding-provider P] [--timeout S]

Starts the memory service (Admin API and web UI) for DATA_DIR in the background and waits
until it answers. When one runs already for DATA_DIR (started by memcli, by
'deno task start' or at login) it says so and changes nothing. Flags as for setup.
`,
  stop: `Usage: memcli stop [--timeout S]

Stops the memory service of DATA_DIR, whoever started it (memcli, 'deno task start', the
login service): SIGTERM, then SIGKILL after the timeout (default 10 s). Data is kept.
`,
  restart:
    `Usage: memcli restart [--if-running] [--port N] [--database-url URL] [--embedding-provider P]
                      [--timeout S]

Stops the memory service of DATA_DIR (if it runs), then starts it in the background.
--if-running (what 'deno task install' runs after an upgrade): only when a service of
DATA_DIR runs from an install on another version; through its login entry when one runs it;
a service started from a clone (deno task start) is left alone.
`,
  connect: `Usage: memcli connect claude [--recall|--no-recall] [--capture] [--take-over|--keep]
                             [--project-dir DIR] [--dry-run] [--no-autostart] [--bin DIR] [--timeout S]

Connects Claude Code to Mneme in one step; running it again changes nothing:
  1. starts the memory service for DATA_DIR unless it runs; one started in a terminal
     (deno task start) stops with that terminal: connect says so and offers to take it over
     (on a terminal it asks; otherwise only with --take-over; --keep keeps it);
  2. makes it start at login: a systemd user unit (Linux), a launchd agent (macOS); where
     neither exists, the next thing that exists runs 'memcli start' at login: an XDG
     autostart entry in a desktop session, else an @reboot line in your crontab, else a
     line in your login shell's profile (~/.profile, ~/.bash_profile, ~/.zprofile);
  3. adds the hooks to Claude Code's user settings (--project-dir: DIR/.claude/settings.json)
     with the absolute path of the installed memcli: SessionStart -> bootstrap, and with
     --recall UserPromptSubmit -> recall (kept when there, removed with --no-recall);
  4. registers the MCP server 'mneme' for all your projects (claude mcp add --scope user)
     with the absolute path of the installed mneme-mcp; without 'claude' on PATH it prints
     the line to run;
  5. checks it as Claude Code runs it, with a minimal PATH: every hook it installed runs and
     the MCP server answers initialize.
The installed commands are found in --bin DIR, else the folder memcli was installed in.

Flags:
  --recall          also the recall hook (relevant memories on each prompt)
  --no-recall       remove the recall hook
  --capture         also the capture hook (Stop, PreCompact, SessionEnd -> capture --hook)
  --take-over       stop a service started in a terminal and start the background service
  --keep            keep a service started in a terminal (it stops with that terminal)
  --project-dir DIR hooks in DIR/.claude/settings.json instead of the user settings
  --dry-run         say what would be done; change nothing
  --no-autostart    do not register the start at login
  --bin DIR         the folder of the installed commands (memcli, mneme-mcp, mneme-admin)
  --timeout S       seconds to wait for the service to answer (default 120)
  -h, --help        show this help
`,
  disconnect: `Usage: memcli disconnect claude [--project-dir DIR] [--dry-run]

Undoes 'memcli connect claude': removes Mneme's hooks (a settings file left empty is
removed, and the backup folder when nothing is in it), the MCP server 'mneme' and the start
at login, and stops the service that start at login ran. Memories are kept. With
--project-dir only that project's hooks are removed.

Flags:
  --project-dir DIR the hooks of DIR/.claude/settings.json instead of the user settings
  --dry-run         say what would be done; change nothing
  -h, --help        show this help
`,
  status: `Usage: memcli status [--json]

Reports whether the admin daemon runs (pid, uptime, URL), the health of the database and
the embedder, memory counts, and the data directory with its size.
Exit code: 0 running and healthy, 2 running but degraded (maintenance or error), 1 down.

Flags:
  --json       machine-readable output
  -h, --help   show this help
`,
  uninstall: `Usage: memcli uninstall [--purge] [--timeout S]

Stops the admin daemon gracefully (SIGTERM; SIGKILL after the timeout) and keeps all data.

Flags:
  --purge      then delete DATA_DIR, only after you type its full path at the prompt
               (any other answer, or no terminal, deletes nothing and exits 1)
  --timeout S  seconds to wait after SIGTERM before SIGKILL (default 10)
  -h, --help   show this help
`,
  bootstrap: `Usage: memcli bootstrap [--project NAME] [--hook [--deadline MS]]

Prints the session-start Markdown: a System section, the bootstrap memories grouped as
Bootstrap, Rules, Feedback, Facts, Decisions and Context, and a Bootstrap Stats block.
The project is --project, else the "project" of a .mneme file (JSON {"project": "name"})
found walking up from the current directory to the repository root, else the git
repository root's directory name, else the current directory's name; the Stats block names
the source. When the service is down it prints a note on stderr and an empty bootstrap,
and exits 0.

With --hook (an agent's session-start hook): reads the hook's JSON from stdin (cwd,
session_id, source), resolves the project from its cwd, and finishes within the deadline
whatever happens, exit code 0; when the service is down or slow it prints a one-line note
instead of the bootstrap.

Flags:
  --project NAME   project whose bootstrap memories are added to the global ones
  --hook           run as an agent hook (see above)
  --deadline MS    with --hook: hard deadline from process start, 100..60000
                   (default: MEMCLI_HOOK_DEADLINE_MS, else 1500)
  -h, --help       show this help
`,
  capture: `Usage: memcli capture --hook [--deadline MS]

Claude Code's Stop, PreCompact and SessionEnd hook: hands the hook's JSON on stdin
(session_id, transcript_path, cwd, hook_event_name) to the memory service, which reads the
session's new transcript lines later and proposes what it finds for review. Returns within
the deadline whatever happens, exit code 0, one line on stderr when the service is down.

Flags:
  --deadline MS    hard deadline from process start (default 1500, or MEMCLI_HOOK_DEADLINE_MS)
  -h, --help       show this help
`,
  inbox: `Usage: memcli inbox [list] [--project NAME | --global] [--type T] [--limit N] [--json]
       memcli inbox --accepted [--days N] [--limit N] [--json]
       memcli inbox accept ID... [--keep] [--pin] [--json]
       memcli inbox reject ID...
       memcli inbox edit ID CONTENT... [--json]

Reviews the memories capture proposed from your Claude Code sessions. They wait here and are
never recalled (no bootstrap, prompt hook, recall or search) until accepted. The list shows
each proposal's short id, where it goes, its type, the extractor's confidence, when and in
which session it was said, and the stored memory it would replace. accept stores it as a
memory (embedded, checked for secrets and contradictions like add) and supersedes the memory it
replaces in the same step; --keep stores it without superseding; --pin shows it at every
session start (type bootstrap, its own type kept as a tag, as add --pin). reject removes it. edit
changes its text before you accept it ("-" as CONTENT reads it from stdin); a rejected
statement is remembered and not proposed again. ID is the short id shown (6 or more hex digits)
or the full id. With CAPTURE_AUTO_ACCEPT on, capture stores sure proposals itself (tagged
auto-accepted): the list says how many in the last 7 days, --accepted lists them.

Flags:
  --project NAME   list: only this project's proposals
  --global         list: only global ones
  --type T         list: only this type
  --limit N        list: at most N (1-1000, default 50)
  --accepted       the memories capture accepted automatically (newest first)
  --days N         --accepted: of the last N days (1-365, default 7)
  --keep           accept: do not supersede the memory it replaces
  --pin            accept: show it at every session start (the bootstrap), not only in recall
  --json           JSON output
  -h, --help       show this help
`,
  recall: `Usage: memcli recall QUERY... [--project NAME] [--limit N] [--max-chars N]
                     [--min-confidence X] [--min-score X]
       memcli recall --hook [--deadline MS] [--limit N] [--max-chars N]
                     [--min-confidence X] [--min-score X]

Prints the memories about QUERY for an agent's context: global memories plus the
project's (detected as for bootstrap) whose confidence (how likely the memory is about the
query, 0..1, the same scale for any project and query) is at least --min-confidence, each on
one line with type, scope, confidence and id, leaving out bootstrap memories; nothing when
nothing stored is about it.

With --hook (an agent's prompt hook, e.g. Claude Code's UserPromptSubmit): the query is the
"prompt" of the hook's JSON on stdin and the project comes from its "cwd"; it finishes
within the deadline whatever happens, exit code 0, and prints nothing (a note on stderr)
when the service is down or slow.

Flags:
  --project NAME   project to search besides global memories
  --limit N        at most N memories, 1..100 (default 5)
  --max-chars N    the whole block within N characters, 200..100000 (default 4000)
  --min-confidence X  leave out results of confidence below X, 0..1 (default 0.9)
  --min-score X    leave out results scoring below X, 0..10 (default 0.1; the score is
                   relevance x scope weight x weight x decay)
  --hook           run as an agent hook (see above)
  --deadline MS    with --hook: hard deadline from process start, 100..60000
                   (default: MEMCLI_HOOK_DEADLINE_MS, else 1500)
  -h, --help       show this help
`,
  hooks: `Usage: memcli hooks install [--recall] [--capture] [--project-dir DIR] [--dry-run]
                           [--command CMD] [--deadline MS] [--limit N] [--max-chars N]
                           [--min-confidence X]
       memcli hooks uninstall [--recall] [--capture] [--project-dir DIR] [--dry-run]
       memcli hooks status [--project-dir DIR]

Claude Code hooks that bring memories to the agent by themselves. install adds to Claude
Code's user settings (CLAUDE_CONFIG_DIR or ~/.claude/settings.json), or with --project-dir
to DIR/.claude/settings.json:
  SessionStart      -> memcli bootstrap --hook   (the bootstrap at every session start)
  UserPromptSubmit  -> memcli recall --hook      (with --recall: relevant memories on each
                                                  prompt)
  Stop, PreCompact, SessionEnd -> memcli capture --hook (with --capture: hand the session
                                                  over for automatic capture)
Every other setting and every other hook is kept; the file is first copied to
mneme-backups/settings.json.<time> next to it, then replaced atomically; a second install
changes nothing. uninstall removes Mneme's hooks only (with --recall: only the recall hook).
status shows the Mneme hooks in the user and project settings and whether the memory
service answers.

Flags:
  --recall          install: also the recall hook; uninstall: only the recall hook
  --capture         install: also the capture hook; uninstall: only the capture hook
  --project-dir DIR edit DIR/.claude/settings.json instead of the user settings
  --dry-run         print the change as a diff; write nothing
  --command CMD     how the hooks run memcli (default "memcli", from PATH)
  --deadline MS     the hooks' deadline, 100..60000 (default 1500)
  --limit N         recall: at most N memories (default 5)
  --max-chars N     recall: character budget (default 4000)
  --min-confidence X recall: inject only memories of confidence X or more, 0..1
                    (default 0.7; lower injects more, and more noise)
  -h, --help        show this help
`,
  version: `Usage: memcli version

Prints "memcli v<version>" and where it is installed; when the memory service answers and
runs another version, says so ('memcli restart' moves it to this one). 'memcli --version'
prints the first line only, without asking the service.
`,
  export: `Usage: memcli export [FILE]

Writes all current memories (up to 10000) as a JSON array to FILE, or to stdout when FILE is
absent or "-". The file can be loaded with "memcli import" into any Mneme instance.

Flags:
  -h, --help   show this help
`,
  import: `Usage: memcli import FILE [--batch N] [--skip N]

Loads a JSON array of memories (an export file, or items with content, scope, project,
type, tags, weight) from FILE ("-" for stdin). Every item is re-embedded with the current
provider and gets a new id. Items already stored (same content, scope, project and type)
are skipped and counted: importing an export again stores nothing twice. Items are sent in
batches; each batch is all-or-nothing.

Flags:
  --batch N    items per request, 1..10000 (default 500; 10000 makes a file of up to
               10000 items a single all-or-nothing import)
  --skip N     skip the first N items (resume after a failed batch)
  -h, --help   show this help
`,
  search:
    `Usage: memcli search QUERY... [--project NAME | --global] [--scope S] [--limit N] [--json]

Semantic search over global memories plus the project's. The project is --project, else the
repository's (as for bootstrap: .mneme, git root, directory name); --global searches global
memories only; --scope all searches every project's memories and the global ones.

Flags:
  --project NAME   search global + this project's memories
  --global         global memories only
  --scope S        global | project | all
  --limit N        1..100 (default 5)
  --json           print the raw results
  -h, --help       show this help
`,
  add: `Usage: memcli add CONTENT... [--type T] [--project NAME | --global] [--tags a,b] [--ttl D]
                  [--weight W] [--pin] [--replace | --supersedes ID] [--json]

Stores a memory ("-" as CONTENT reads it from stdin) in the repository's project (as for
bootstrap: .mneme, git root, directory name), or with --global for every project, and says
when the agent will see it: at every session start (pinned, type bootstrap) or when
relevant to a prompt (recall).

Contradictions (similar memories, similarity > 0.75): on a terminal add asks first whether
to replace the old memory, keep both or cancel; --replace supersedes the one it contradicts
in the same step (refused, naming them, when several do).

Flags:
  --type T          fact (default) | rule | decision | feedback | context | bootstrap
  --project NAME    project of the memory (default: the repository's)
  --global          a global memory, for every project
  --scope S         global | project
  --pin             show it at every session start: stored as type bootstrap, its own type
                    kept as a tag (the bootstrap lists it under Rules, Facts ...)
  --tags a,b        comma-separated tags (may be repeated)
  --ttl D           lifetime: 30m, 24h, 7d, 2w, 1d12h ...
  --weight W        importance 0.1..1.0 (default 1.0)
  --replace         supersede the memory this one contradicts, in one step
  --supersedes ID   id of the memory this one replaces
  --json            print the raw create response
  -h, --help        show this help
`,
  list: `Usage: memcli list [--project NAME | --global] [--scope S] [--type T] [--tag TAG]
                   [--limit N] [--json]

Lists current memories, newest update first: the repository's project's (as for bootstrap)
and the global ones; --global lists global memories only, --scope project the project's only.

Flags:
  --project NAME   this project (default: the repository's)
  --global         global memories only
  --scope S        global | project
  --type T         fact | rule | decision | feedback | context | bootstrap
  --tag TAG        only memories with this tag (among the 1000 newest)
  --limit N        1..1000 (default 50)
  --json           the memories as JSON
  -h, --help       show this help
`,
  expansion: `Usage: memcli expansion show ID [--json]
       memcli expansion clear ID | --all [--yes] [--json]
       memcli expansion redo ID | --all [--json]

With MEMORY_EXPANSION=on the admin daemon asks a model for short phrases that say each memory
in other words, so that search finds it by meaning (docs/recall.md). show prints a memory's
phrases, the model that wrote them and its state (expanded, waiting, cleared). clear removes the
phrases of one memory, or of every memory (--all): the memory is searched by its content only,
as before it was expanded, and the worker does not expand it again (a memory not yet expanded
is kept from it). redo lets the worker expand again one cleared memory, or all (--all). ID is
the full id or a unique prefix (6 or more hex digits). clear --all asks for confirmation on a
terminal; without a terminal it needs --yes.

Flags:
  --all            clear, redo: every memory
  -y, --yes        clear --all: remove without asking
  --json           JSON output
  -h, --help       show this help
`,
  get: `Usage: memcli get ID [--json]

Shows one memory: where, type, tags, weight, times, supersession and its content.

Flags:
  --json       the memory as JSON
  -h, --help   show this help
`,
  update: `Usage: memcli update ID CONTENT... [--json]

Replaces a memory's content in place (re-embedded; same id, scope, type and tags). "-" as
CONTENT reads it from stdin. To keep the old text as history, use replace.

Flags:
  --json       the updated memory as JSON
  -h, --help   show this help
`,
  replace: `Usage: memcli replace ID CONTENT... [--json]

Stores CONTENT as a new memory with the old one's scope, project, type, tags and weight and
supersedes memory ID, in one transaction: the old one drops out of recall and the bootstrap,
and nothing is duplicated. "-" as CONTENT reads it from stdin.

Flags:
  --json       the create response as JSON
  -h, --help   show this help
`,
  forget: `Usage: memcli forget ID... [--yes]

Deletes memories by id. More than one asks for confirmation on a terminal; without a
terminal it needs --yes.

Flags:
  -y, --yes    delete without asking
  -h, --help   show this help
`,
  backup: `Usage: memcli backup FILE

Writes a consistent copy of the embedded database (DATA_DIR/db) to FILE while the daemon
runs: a gzipped tar of the database directory's contents, taken between two statements after a
checkpoint, with every memory, its vector and the recorded embedder. Writes go on
meanwhile. Server Postgres (DATABASE_URL) is backed up with pg_dump instead.

Restore (the daemon stopped):
  memcli uninstall
  mv "$DATA_DIR/db" "$DATA_DIR/db.old"
  mkdir -m 700 "$DATA_DIR/db"
  tar -xzf FILE -C "$DATA_DIR/db"
  memcli setup

Flags:
  -h, --help   show this help
`,
  reembed: `Usage: memcli reembed [--batch-size N]

Re-embeds every memory with the embedder the daemon is configured with, batch by batch,
with progress, then records the new embedder and leaves maintenance mode. Interrupted runs
resume where they stopped when run again.

Flags:
  --batch-size N   memories per request, 1..5000 (default 200)
  -h, --help       show this help
`,
};
COMMAND_USAGE.help = "Usage: memcli help [COMMAND]\n";
