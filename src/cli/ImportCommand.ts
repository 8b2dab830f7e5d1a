/**
 * `status-page import uptime-kuma FILE` and `status-page import statuspage DIR` (docs/migrating.md):
 * the source is read here, on the operator's machine, and sent to the running service, which
 * applies it in one transaction. `--dry-run` prints the plan only.
 */
import { Console, Effect } from "effect"
import { Argument, Command, Flag } from "effect/cli"

import { ApplyResult } from "../api/ConfigurationApi.js"
import type { ImportRead } from "../domain/ImportBundle.js"
import { UsageError } from "./CliFailure.js"
import { planLines } from "./ConfigurationFile.js"
import { readStatuspage } from "./import/StatuspageSource.js"
import { readUptimeKuma } from "./import/UptimeKumaSource.js"
import { type Connection, connection, flagSwitch, print, withClient } from "./Remote.js"

const dryRunFlag = flagSwitch("dry-run").pipe(Flag.withDescription("Print the plan and change nothing"))

/** Sends what was read: the plan first, then (unless a dry run) the import itself. */
const send = (options: Connection & { readonly dryRun: boolean }, read: ImportRead) =>
  Effect.gen(function*() {
    if (!options.json) {
      for (const { reason, record } of read.skipped) yield* Console.error(`skipped ${record}: ${reason}`)
    }
    const run = (dryRun: boolean) =>
      withClient(options, (client) => client.configuration.import({ payload: { bundle: read.bundle, dryRun } }))
    const planned = yield* run(true)
    if (options.dryRun) return yield* print(options, ApplyResult, planned, (result) => planLines(result.plan, false))
    if (!options.json) yield* Console.log(planLines(planned.plan, false))
    const applied = yield* run(false)
    yield* print(options, ApplyResult, applied, (result) => planLines(result.plan, true))
  })

/** A source that cannot be read is the operator's to fix: a usage error naming the file and record. */
const readOrRefuse = <E extends { readonly message: string }>(read: Effect.Effect<ImportRead, E>) =>
  Effect.mapError(read, (error) => new UsageError({ message: error.message }))

const uptimeKuma = Command.make("uptime-kuma", {
  ...connection,
  database: Argument.String("kuma.db").pipe(Argument.withDescription("Uptime Kuma's SQLite database (data/kuma.db)")),
  dryRun: dryRunFlag
}, (options) => Effect.flatMap(readOrRefuse(readUptimeKuma(options.database)), (read) => send(options, read))).pipe(
  Command.withDescription("Import monitors, groups, status pages, maintenance and the pinned incident from Uptime Kuma")
)

const statuspage = Command.make("statuspage", {
  ...connection,
  directory: Argument.String("dir").pipe(
    Argument.withDescription("A directory of the manage API's JSON: page.json, components.json, incidents.json, …")
  ),
  importSubscribers: flagSwitch("import-subscribers").pipe(
    Flag.withDescription("Also import the page's e-mail subscribers, as confirmed (they consented to the old page)")
  ),
  dryRun: dryRunFlag
}, (options) =>
  Effect.flatMap(
    readOrRefuse(readStatuspage(options.directory, { subscribers: options.importSubscribers })),
    (read) => send(options, read)
  )).pipe(
    Command.withDescription(
      "Import components, groups, incidents with their history, maintenance and (on request) subscribers from " +
        "Atlassian Statuspage"
    )
  )

export const ImportCommand = Command.make("import").pipe(
  Command.withDescription("Move to this service from another tool; importing again updates what it made"),
  Command.withSubcommands([uptimeKuma, statuspage])
)
