/**
 * The components an incident affects, each with the status to set it to as the incident opens
 * (`componentStatuses`). The status menu of a component appears under its checkbox once chosen.
 */
import type { Component, ComponentStatus } from "../../../../domain/Component.js"
import { componentStatusLabel, optionsOf } from "../../../Labels.js"
import type { ComponentId } from "./ComponentPicker.js"
import { Checkbox, Fieldset, SelectField } from "./fields.js"

type ComponentJson = typeof Component.json.Type
export type ChosenStatuses = Readonly<Partial<Record<ComponentId, ComponentStatus>>>

/** "" leaves the component's status as it is. */
export const statusChoices: ReadonlyArray<{ readonly value: ComponentStatus | ""; readonly label: string }> = [
  { value: "", label: "Leave as it is" },
  ...optionsOf(componentStatusLabel)
]

/** The chosen statuses of the given components, or undefined when none is set (the API's default). */
export const chosenStatusesOf = (statuses: ChosenStatuses, componentIds: ReadonlyArray<ComponentId>) => {
  const entries = componentIds.flatMap((id) => {
    const status = statuses[id]
    return status === undefined ? [] : [[id, status] as const]
  })
  return entries.length === 0 ? undefined : Object.fromEntries(entries) as Record<ComponentId, ComponentStatus>
}

export const ComponentStatusPicker = (props: {
  /** Unique within the page; prefixes each control's id. */
  readonly id: string
  readonly legend: string
  readonly components: ReadonlyArray<ComponentJson>
  readonly selected: ReadonlyArray<ComponentId>
  readonly onChange: (selected: ReadonlyArray<ComponentId>) => void
  readonly statuses: ChosenStatuses
  readonly onStatusesChange: (statuses: ChosenStatuses) => void
  readonly error?: string | undefined
  readonly statusesError?: string | undefined
}) =>
  props.components.length === 0 ? null : (
    <Fieldset legend={props.legend}>
      {props.components.map((component) => {
        const chosen = props.selected.includes(component.id)
        return (
          <div key={component.id}>
            <Checkbox
              id={`${props.id}-${component.id}`}
              label={component.name}
              checked={chosen}
              onChange={(checked) =>
                props.onChange(
                  checked ? [...props.selected, component.id] : props.selected.filter((id) => id !== component.id)
                )}
            />
            {chosen && (
              // The label leaves the component's name to the hint: forms find a component's checkbox by its
              // name, and this menu sits right under it.
              <div class="component-status">
                <SelectField
                  id={`${props.id}-${component.id}-status`}
                  label="Set to"
                  hint={`${component.name} is now ${componentStatusLabel[component.status]}.`}
                  value={props.statuses[component.id] ?? ""}
                  options={statusChoices}
                  onChange={(status) => {
                    const { [component.id]: _previous, ...others } = props.statuses
                    props.onStatusesChange(status === "" ? others : { ...others, [component.id]: status })
                  }}
                />
              </div>
            )}
          </div>
        )
      })}
      {props.error && <p class="field-error">{props.error}</p>}
      {props.statusesError && <p class="field-error">{props.statusesError}</p>}
    </Fieldset>
  )
