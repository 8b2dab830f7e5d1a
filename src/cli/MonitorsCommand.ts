/** `status-page monitors list | pause ID | resume ID` */
import { Effect, Schema } from "effect"
import { Argument, Command } from "effect/cli"

import { everyItem } from "../client/Pages.js"
import { Monitor, MonitorId } from "../domain/Monitor.js"
import { connection, print, table, withClient } from "./Remote.js"

const list = Command.make(
  "list",
  connection,
  (options) =>
    withClient(options, (client) => everyItem(client.monitors.list)).pipe(
      Effect.flatMap((monitors) =>
        print(options, Schema.Array(Monitor.json), monitors, (all) =>
          all.length === 0 ? "No monitors." : table(
            ["ID", "STATE", "TYPE", "COMPONENT", "TARGET"],
            all.map((monitor) => [
              monitor.id,
              monitor.paused ? "paused" : monitor.state,
              monitor.type,
              monitor.componentId,
              monitor.url
            ])
          ))
      )
    )
).pipe(Command.withDescription("List every monitor with its state (unknown, up, degraded, down)"))

/** `pause` and `resume`: the same shape, one endpoint each. */
const setPaused = (name: "pause" | "resume", description: string) =>
  Command.make(
    name,
    { ...connection, id: Argument.String("id").pipe(Argument.withSchema(MonitorId)) },
    (options) =>
      withClient(options, (client) => client.monitors[name]({ params: { id: options.id } })).pipe(
        Effect.flatMap((monitor) =>
          print(
            options,
            Monitor.json,
            monitor,
            (m) => `Monitor ${m.id} is ${m.paused ? "paused" : `running (${m.state} until checked again)`}.`
          )
        )
      )
  ).pipe(Command.withDescription(description))

export const MonitorsCommand = Command.make("monitors").pipe(
  Command.withDescription("Checks of a component's target run by the probe fleet"),
  Command.withSubcommands([
    list,
    setPaused("pause", "Stop checking a monitor; its outage ends and its component no longer follows it"),
    setPaused("resume", "Check a paused monitor again from its next slot")
  ])
)
