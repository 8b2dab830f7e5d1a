/** Checkboxes choosing components (the affected ones of an incident or a maintenance window). */
import type { Component } from "../../../../domain/Component.js"
import { Checkbox, Fieldset } from "./fields.js"

type ComponentJson = typeof Component.json.Type
export type ComponentId = ComponentJson["id"]

export const ComponentPicker = (props: {
  /** Unique within the page; prefixes each checkbox's id. */
  readonly id: string
  readonly legend: string
  readonly components: ReadonlyArray<ComponentJson>
  readonly selected: ReadonlyArray<ComponentId>
  readonly onChange: (selected: ReadonlyArray<ComponentId>) => void
  readonly error?: string | undefined
}) =>
  props.components.length === 0 ? null : (
    <Fieldset legend={props.legend}>
      {props.components.map((component) => (
        <Checkbox
          key={component.id}
          id={`${props.id}-${component.id}`}
          label={component.name}
          checked={props.selected.includes(component.id)}
          onChange={(checked) =>
            props.onChange(
              checked ? [...props.selected, component.id] : props.selected.filter((id) => id !== component.id)
            )}
        />
      ))}
      {props.error && <p class="field-error">{props.error}</p>}
    </Fieldset>
  )

/** The names of the given components, for a list row. */
export const componentNames = (components: ReadonlyArray<ComponentJson>, ids: ReadonlyArray<string>) =>
  ids.length === 0
    ? "no component"
    : ids.map((id) => components.find((component) => component.id === id)?.name ?? id).join(", ")
