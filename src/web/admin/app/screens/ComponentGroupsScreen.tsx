/**
 * Component groups: the headings the public page shows components under. Listing, creating,
 * editing, deleting; components join a group from the components screen.
 */
import { useState } from "preact/hooks"

import type { ComponentGroup } from "../../../../domain/ComponentGroup.js"
import { call } from "../core/api.js"
import type { Failure } from "../core/failure.js"
import { ConfirmButton, FailureMessage, Loading, StatusMessage, Table } from "../ui/feedback.js"
import { Checkbox, TextArea, TextField } from "../ui/fields.js"
import { useComponentChoices, useListScreen, useSubmit } from "../ui/requests.js"
import type { Screen } from "./Screen.js"

type GroupJson = typeof ComponentGroup.json.Type
type ComponentJson = ReturnType<typeof useComponentChoices>[number]

const GroupForm = (props: {
  readonly id: string
  readonly initial?: GroupJson
  readonly submitLabel: string
  readonly onSaved: (group: GroupJson) => void
  readonly onCancel?: () => void
}) => {
  const [name, setName] = useState(props.initial?.name ?? "")
  const [description, setDescription] = useState(props.initial?.description ?? "")
  const [isPublic, setPublic] = useState(props.initial?.isPublic ?? true)
  const { failure, busy, submit, fieldError } = useSubmit()

  const onSubmit = async (event: Event) => {
    event.preventDefault()
    const payload = { name: name.trim(), description, isPublic }
    const initial = props.initial
    const outcome = await submit((api) =>
      initial
        ? api.componentGroups.update({ params: { id: initial.id }, payload })
        : api.componentGroups.create({ payload })
    )
    if (outcome.ok) {
      if (!initial) {
        setName("")
        setDescription("")
      }
      props.onSaved(outcome.value)
    }
  }

  return (
    <form onSubmit={onSubmit} noValidate aria-labelledby={`${props.id}-title`}>
      <FailureMessage failure={failure} />
      <TextField
        id={`${props.id}-name`}
        label="Name"
        required
        value={name}
        onInput={setName}
        error={fieldError("name")}
      />
      <TextArea
        id={`${props.id}-description`}
        label="Description"
        value={description}
        onInput={setDescription}
        error={fieldError("description")}
      />
      <Checkbox
        id={`${props.id}-public`}
        label="Shown on the public status page"
        hint="A private group is not shown; its public components appear ungrouped."
        checked={isPublic}
        onChange={setPublic}
        error={fieldError("isPublic")}
      />
      <div class="actions">
        <button type="submit" class="primary" disabled={busy}>{props.submitLabel}</button>
        {props.onCancel && <button type="button" onClick={props.onCancel}>Cancel</button>}
      </div>
    </form>
  )
}

const GroupRow = (props: {
  readonly group: GroupJson
  readonly components: ReadonlyArray<ComponentJson>
  readonly onChanged: (message: string) => void
}) => {
  const { group } = props
  const [editing, setEditing] = useState(false)
  const [failure, setFailure] = useState<Failure | null>(null)
  const members = props.components.filter((component) => component.groupId === group.id)

  const remove = async () => {
    const outcome = await call((api) => api.componentGroups.remove({ params: { id: group.id } }))
    setFailure(outcome.ok ? null : outcome.failure)
    if (outcome.ok) props.onChanged(`The group ${group.name} was deleted; its components are ungrouped.`)
  }

  return (
    <tr>
      <th scope="row">
        {group.name}
        {!group.isPublic && <span class="badge">private</span>}
        {group.description && <p class="muted small">{group.description}</p>}
        <FailureMessage failure={failure} />
        {editing && (
          <section class="inline-form" aria-labelledby={`edit-group-${group.id}-title`}>
            <h3 id={`edit-group-${group.id}-title`}>Edit {group.name}</h3>
            <GroupForm
              id={`edit-group-${group.id}`}
              initial={group}
              submitLabel="Save"
              onCancel={() => setEditing(false)}
              onSaved={(saved) => {
                setEditing(false)
                props.onChanged(`The group ${saved.name} was saved.`)
              }}
            />
          </section>
        )}
      </th>
      <td>{members.length === 0 ? "None" : members.map((component) => component.name).join(", ")}</td>
      <td class="row-actions">
        <button type="button" onClick={() => setEditing(!editing)} aria-expanded={editing}>
          Edit<span class="visually-hidden">{group.name}</span>
        </button>
        <ConfirmButton label="Delete" confirmLabel={`Delete ${group.name}`} onConfirm={remove} />
      </td>
    </tr>
  )
}

const ComponentGroupsView = () => {
  const { loaded, message, changed } = useListScreen((api) => api.componentGroups.list())
  const components = useComponentChoices()

  return (
    <>
      <h1>Component groups</h1>
      <StatusMessage text={message} />
      <p class="muted">
        The public page shows a group with the worst status of its components. Put a component in a group from the
        Components screen.
      </p>
      <Loading loaded={loaded}>
        {(groups) =>
          groups.length === 0 ? <p>No groups yet. Create one below.</p> : (
            <Table caption="Component groups">
              <thead>
                <tr>
                  <th scope="col">Group</th>
                  <th scope="col">Components</th>
                  <th scope="col">Actions</th>
                </tr>
              </thead>
              <tbody>
                {groups.map((group) => (
                  <GroupRow key={group.id} group={group} components={components} onChanged={changed} />
                ))}
              </tbody>
            </Table>
          )}
      </Loading>
      <section aria-labelledby="new-group-title">
        <h2 id="new-group-title">New group</h2>
        <GroupForm
          id="new-group"
          submitLabel="Create group"
          onSaved={(created) => changed(`The group ${created.name} was created.`)}
        />
      </section>
    </>
  )
}

export const ComponentGroupsScreen: Screen = {
  path: "component-groups",
  title: "Component groups",
  View: ComponentGroupsView
}
