#!/usr/bin/env node
/**
 * `status-page`: the command line for operators and pipelines (docs/cli.md). Most commands call
 * a running service through the typed client (./Remote.ts); `api-key` and `admin` work on its
 * database directly (./Local.ts). The exit code says how it went (./CliFailure.ts).
 */
import { Command } from "@effect/cli"
import { NodeContext, NodeRuntime } from "@effect/platform-node"
import { Cause, Console, Effect, Exit } from "effect"

import packageJson from "../../package.json" with { type: "json" }
import { environment } from "../Config.js"
import { AdminCommand } from "./AdminCommand.js"
import { ApiKeyCommand } from "./ApiKeyCommand.js"
import { ExitCode, report } from "./CliFailure.js"
import { ComponentsCommand } from "./ComponentsCommand.js"
import { IncidentsCommand } from "./IncidentsCommand.js"
import { MaintenanceCommand } from "./MaintenanceCommand.js"
import { MonitorsCommand } from "./MonitorsCommand.js"

const root = Command.make("status-page").pipe(
  Command.withDescription("Operate a status page from a shell or a pipeline"),
  Command.withSubcommands([
    ComponentsCommand,
    IncidentsCommand,
    MaintenanceCommand,
    MonitorsCommand,
    ApiKeyCommand,
    AdminCommand
  ])
)

const cli = Command.run(root, { name: "status-page", version: packageJson.version })

cli(process.argv).pipe(
  Effect.as<ExitCode>(ExitCode.ok),
  Effect.catchAll(report),
  // A defect is the CLI's own bug: say so, and do not pass for a refusal.
  Effect.catchAllDefect((defect) =>
    Effect.as(Console.error(`Internal error: ${Cause.pretty(Cause.die(defect))}`), ExitCode.internal)
  ),
  Effect.provide(NodeContext.layer),
  // A variable set to nothing counts as unset, as for the service.
  Effect.withConfigProvider(environment()),
  NodeRuntime.runMain({
    disableErrorReporting: true,
    teardown: (exit, onExit) =>
      onExit(
        Exit.isSuccess(exit) && typeof exit.value === "number"
          ? exit.value
          : Exit.isInterrupted(exit)
          ? ExitCode.interrupted
          : ExitCode.internal
      )
  })
)
