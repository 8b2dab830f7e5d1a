/** `status-page components list | set-status ID STATUS` */
import { Effect, Schema } from "effect"
import { Argument, Command } from "effect/cli"

import { everyItem } from "../client/Pages.js"
import { Component, ComponentId, ComponentStatus, SetComponentStatus } from "../domain/Component.js"
import { body, choices, connection, print, quoted, table, withClient } from "./Remote.js"

const list = Command.make(
  "list",
  connection,
  (options) =>
    withClient(options, (client) => everyItem(client.components.list)).pipe(
      Effect.flatMap((components) =>
        print(options, Schema.Array(Component.json), components, (all) =>
          all.length === 0 ? "No components." : table(
            ["ID", "STATUS", "PUBLIC", "NAME"],
            all.map((component) => [component.id, component.status, component.isPublic ? "yes" : "no", component.name])
          ))
      )
    )
).pipe(Command.withDescription("List every component, public and private, in display order"))

const setStatus = Command.make("set-status", {
  ...connection,
  id: Argument.String("id").pipe(Argument.withSchema(ComponentId)),
  status: Argument.ChoiceWithValue("status", choices(ComponentStatus.literals))
}, (options) =>
  Effect.gen(function*() {
    const payload = yield* body(SetComponentStatus, { status: options.status })
    const component = yield* withClient(options, (client) =>
      client.components.setStatus({ params: { id: options.id }, payload }))
    yield* print(options, Component.json, component, (c) =>
      `Component ${c.id} ${quoted(c.name)} is ${c.status}.`)
  })).pipe(Command.withDescription(
    "Set a component's status by hand; monitors leave it alone until it is operational again"
  ))

export const ComponentsCommand = Command.make("components").pipe(
  Command.withDescription("The components whose status the page shows"),
  Command.withSubcommands([list, setStatus])
)
