#!/usr/bin/env node
/**
 * `status-page`: the command line for operators and pipelines (docs/cli.md). Most commands call
 * a running service through the typed client (./Remote.ts); `api-key` and `admin` work on its
 * database directly (./Local.ts). The exit code says how it went (./CliFailure.ts).
 */
import { NodeRuntime, NodeServices } from "@effect/platform-node"
import { Cause, ConfigProvider, Console, Effect, Exit } from "effect"
import { CliOutput, Command } from "effect/cli"

import packageJson from "../../package.json" with { type: "json" }
import { environment } from "../runtime/Config.js"
import { AdminCommand } from "./AdminCommand.js"
import { ApiKeyCommand } from "./ApiKeyCommand.js"
import { BackupCommand } from "./BackupCommand.js"
import { ExitCode, report } from "./CliFailure.js"
import { ComponentsCommand } from "./ComponentsCommand.js"
import { ApplyCommand, ExportCommand } from "./ConfigurationCommand.js"
import { ImportCommand } from "./ImportCommand.js"
import { IncidentsCommand } from "./IncidentsCommand.js"
import { MaintenanceCommand } from "./MaintenanceCommand.js"
import { MonitorsCommand } from "./MonitorsCommand.js"
import { RestoreCommand } from "./RestoreCommand.js"

const root = Command.make("status-page").pipe(
  Command.withDescription("Operate a status page from a shell or a pipeline"),
  Command.withSubcommands([
    ComponentsCommand,
    IncidentsCommand,
    MaintenanceCommand,
    MonitorsCommand,
    ApiKeyCommand,
    AdminCommand,
    ExportCommand,
    ApplyCommand,
    ImportCommand,
    BackupCommand,
    RestoreCommand
  ])
)

/**
 * What effect/cli prints itself, as before: help on stdout; a command line it cannot parse as
 * its errors alone on stderr, so stdout stays empty for a pipeline (`--json`); `--version` as
 * the bare version.
 */
const presenter = CliOutput.layerPresenter({
  present: (event) =>
    event._tag === "InvalidInvocation"
      ? Effect.flatMap(CliOutput.Formatter, (formatter) => Console.error(formatter.formatErrors(event.errors)))
      : event._tag === "Version"
      ? Console.log(event.version)
      : CliOutput.defaultPresenter.present(event)
})

Command.run(root, { version: packageJson.version }).pipe(
  Effect.as<ExitCode>(ExitCode.ok),
  Effect.catch(report),
  // A defect is the CLI's own bug: say so, and do not pass for a refusal.
  Effect.catchDefect((defect) =>
    Effect.as(Console.error(`Internal error: ${Cause.pretty(Cause.die(defect))}`), ExitCode.internal)
  ),
  Effect.provide([NodeServices.layer, presenter]),
  // A variable set to nothing counts as unset, as for the service.
  Effect.provideService(ConfigProvider.ConfigProvider, environment()),
  NodeRuntime.runMain({
    disableErrorReporting: true,
    teardown: (exit, onExit) =>
      onExit(
        Exit.isSuccess(exit) && typeof exit.value === "number"
          ? exit.value
          : Exit.hasInterrupts(exit)
          ? ExitCode.interrupted
          : ExitCode.internal
      )
  })
)
