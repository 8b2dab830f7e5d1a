/**
 * `status-page export [-o FILE]` and `status-page apply -f FILE [--prune] [--dry-run]`:
 * configuration as code (docs/configuration-as-code.md), against a running service.
 */
import { mkdtemp, readFile, rename, rm, writeFile } from "node:fs/promises"
import { dirname, join } from "node:path"

import { Console, Effect, Option } from "effect"
import { Command, Flag } from "effect/cli"

import { ApplyResult } from "../api/ConfigurationApi.js"
import { UsageError } from "./CliFailure.js"
import { planLines, readConfiguration, toYaml } from "./ConfigurationFile.js"
import { connection, flagSwitch, print, withClient } from "./Remote.js"

/** Writes `text` to `path` whole or not at all (a temporary file beside it, renamed). */
export const writeWhole = (path: string, text: string) =>
  Effect.tryPromise({
    try: async () => {
      const scratch = await mkdtemp(join(dirname(path), ".status-page-"))
      try {
        await writeFile(join(scratch, "file"), text, { mode: 0o600 })
        await rename(join(scratch, "file"), path)
      } finally {
        await rm(scratch, { recursive: true, force: true })
      }
    },
    catch: (error) => new UsageError({ message: `Cannot write ${path}: ${(error as Error).message}` })
  })

const exportCommand = Command.make("export", {
  ...connection,
  output: Flag.String("output").pipe(
    Flag.withAlias("o"),
    Flag.optional,
    Flag.withDescription("Write the file here instead of stdout")
  )
}, (options) =>
  Effect.gen(function*() {
    const document = yield* withClient(options, (client) => client.configuration.export())
    const yaml = yield* toYaml(document)
    if (Option.isNone(options.output)) return yield* Console.log(yaml.trimEnd())
    yield* writeWhole(options.output.value, yaml)
    yield* Console.error(`Wrote the configuration to ${options.output.value}.`)
  })).pipe(Command.withDescription(
    "Write the whole configuration as YAML (secrets as ${VARIABLE} references), for `apply -f`"
  ))

const applyCommand = Command.make("apply", {
  ...connection,
  file: Flag.String("file").pipe(Flag.withAlias("f"), Flag.withDescription("The configuration file (YAML or JSON)")),
  prune: flagSwitch("prune").pipe(Flag.withDescription("Delete what the file does not name")),
  dryRun: flagSwitch("dry-run").pipe(Flag.withDescription("Print the plan and change nothing"))
}, (options) =>
  Effect.gen(function*() {
    const text = yield* Effect.tryPromise({
      try: () => readFile(options.file, "utf8"),
      catch: (error) => new UsageError({ message: `Cannot read ${options.file}: ${(error as Error).message}` })
    })
    const document = yield* readConfiguration(text, process.env)
    const run = (dryRun: boolean) =>
      withClient(
        options,
        (client) => client.configuration.apply({ payload: { document, prune: options.prune, dryRun } })
      )
    // The plan first, then the change: the answer of the change is what was done.
    const planned = yield* run(true)
    if (options.dryRun) return yield* print(options, ApplyResult, planned, (result) => planLines(result.plan, false))
    if (!options.json) yield* Console.log(planLines(planned.plan, false))
    const applied = yield* run(false)
    yield* print(options, ApplyResult, applied, (result) => planLines(result.plan, true))
  })).pipe(Command.withDescription(
    "Make the service match a configuration file, printing the plan first (one transaction)"
  ))

export const ExportCommand = exportCommand
export const ApplyCommand = applyCommand
