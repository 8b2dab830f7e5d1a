/** `status-page monitors list | pause ID | resume ID` */
import { Effect, Option, Schema } from "effect"
import { Argument, Command } from "effect/cli"

import { everyItem } from "../client/Pages.js"
import { Monitor, MonitorId } from "../domain/Monitor.js"
import { pushPath } from "../domain/PushToken.js"
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

/** `rotate-push-token ID`: a push monitor's new URL, printed the one time it is shown. */
const rotatePushToken = Command.make(
  "rotate-push-token",
  { ...connection, id: Argument.String("id").pipe(Argument.withSchema(MonitorId)) },
  (options) =>
    withClient(options, (client) => client.monitors.rotatePushToken({ params: { id: options.id } })).pipe(
      Effect.flatMap((monitor) =>
        print(
          options,
          Monitor.json,
          monitor,
          (m) =>
            `New push URL of monitor ${m.id} (shown this once; the old one no longer works):\n${
              Option.match(options.url, {
                onNone: () => `${pushPath}${m.pushToken}`,
                onSome: (base) => new URL(`${pushPath}${m.pushToken}`, base).toString()
              })
            }`
        )
      )
    )
).pipe(Command.withDescription("Give a push monitor a new token and print its new URL; the old URL stops working"))

export const MonitorsCommand = Command.make("monitors").pipe(
  Command.withDescription("Checks of a component's target run by the probe fleet"),
  Command.withSubcommands([
    list,
    setPaused("pause", "Stop checking a monitor; its outage ends and its component no longer follows it"),
    setPaused("resume", "Check a paused monitor again from its next slot"),
    rotatePushToken
  ])
)
