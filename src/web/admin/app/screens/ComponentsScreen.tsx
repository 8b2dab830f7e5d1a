/**
 * Components: the list with a quick status change per row, creating, editing and deleting, and
 * the group each is shown under.
 */
import { useState } from "preact/hooks"

import type { Component, ComponentStatus } from "../../../../domain/Component.js"
import type { ComponentGroup } from "../../../../domain/ComponentGroup.js"
import { componentStatusLabel, optionsOf } from "../../../Labels.js"
import { call } from "../core/api.js"
import type { Failure } from "../core/failure.js"
import { ConfirmButton, FailureMessage, Loading, StatusMessage, Table } from "../ui/feedback.js"
import { Checkbox, SelectField, TextArea, TextField } from "../ui/fields.js"
import { useListScreen, useLoad, useSubmit } from "../ui/requests.js"
import type { Screen } from "./Screen.js"

const componentStatuses = optionsOf(componentStatusLabel)

type ComponentJson = typeof Component.json.Type
type GroupJson = typeof ComponentGroup.json.Type

const ComponentForm = (props: {
  readonly id: string
  readonly initial?: ComponentJson
  readonly groups: ReadonlyArray<GroupJson>
  readonly submitLabel: string
  readonly onSaved: (component: ComponentJson) => void
  readonly onCancel?: () => void
}) => {
  const [name, setName] = useState(props.initial?.name ?? "")
  const [description, setDescription] = useState(props.initial?.description ?? "")
  const [status, setStatus] = useState<ComponentStatus>(props.initial?.status ?? "operational")
  const [isPublic, setPublic] = useState(props.initial?.isPublic ?? true)
  const [groupId, setGroupId] = useState(props.initial?.groupId ?? "")
  const { failure, busy, submit, fieldError } = useSubmit()

  const onSubmit = async (event: Event) => {
    event.preventDefault()
    const payload = { name: name.trim(), description, status, isPublic, groupId: groupId === "" ? null : groupId }
    const initial = props.initial
    const outcome = await submit((api) =>
      initial ? api.components.update({ params: { id: initial.id }, payload }) : api.components.create({ payload })
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
      <SelectField
        id={`${props.id}-status`}
        label="Status"
        value={status}
        options={componentStatuses}
        onChange={setStatus}
        error={fieldError("status")}
      />
      {(props.groups.length > 0 || groupId !== "") && (
        <SelectField
          id={`${props.id}-group`}
          label="Group"
          hint="The public page shows it under this group."
          value={groupId}
          options={[
            { value: "", label: "None" },
            ...props.groups.map((group) => ({ value: group.id, label: group.name }))
          ]}
          onChange={setGroupId}
          error={fieldError("groupId")}
        />
      )}
      <Checkbox
        id={`${props.id}-public`}
        label="Shown on the public status page"
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

const ComponentRow = (props: {
  readonly component: ComponentJson
  readonly groups: ReadonlyArray<GroupJson>
  readonly onChanged: (message: string) => void
  readonly reload: () => void
}) => {
  const { component } = props
  const [editing, setEditing] = useState(false)
  const [failure, setFailure] = useState<Failure | null>(null)
  const group = props.groups.find((candidate) => candidate.id === component.groupId)

  const changeStatus = async (status: ComponentStatus) => {
    const outcome = await call((api) => api.components.setStatus({ params: { id: component.id }, payload: { status } }))
    setFailure(outcome.ok ? null : outcome.failure)
    // On failure the menu shows a status the server did not take: show the stored one again.
    if (outcome.ok) props.onChanged(`${component.name} is now ${componentStatusLabel[status].toLowerCase()}.`)
    else props.reload()
  }
  const remove = async () => {
    const outcome = await call((api) => api.components.remove({ params: { id: component.id } }))
    setFailure(outcome.ok ? null : outcome.failure)
    if (outcome.ok) props.onChanged(`${component.name} was deleted.`)
  }

  return (
    <tr>
      <th scope="row">
        {component.name}
        {!component.isPublic && <span class="badge">private</span>}
        {group && <p class="muted small">In {group.name}</p>}
        {component.description && <p class="muted small">{component.description}</p>}
        {editing && (
          <section class="inline-form" aria-labelledby={`edit-${component.id}-title`}>
            <h3 id={`edit-${component.id}-title`}>Edit {component.name}</h3>
            <ComponentForm
              id={`edit-${component.id}`}
              initial={component}
              groups={props.groups}
              submitLabel="Save"
              onCancel={() => setEditing(false)}
              onSaved={(saved) => {
                setEditing(false)
                props.onChanged(`${saved.name} was saved.`)
              }}
            />
          </section>
        )}
      </th>
      <td>
        <select
          aria-label={`Status of ${component.name}`}
          class={`status status-${component.status}`}
          value={component.status}
          onChange={(event) => changeStatus(event.currentTarget.value as ComponentStatus)}
        >
          {componentStatuses.map((option) => <option key={option.value} value={option.value}>{option.label}</option>)}
        </select>
        <FailureMessage failure={failure} />
      </td>
      <td class="row-actions">
        <button type="button" onClick={() => setEditing(!editing)} aria-expanded={editing}>
          Edit<span class="visually-hidden">{component.name}</span>
        </button>
        <ConfirmButton label={`Delete`} confirmLabel={`Delete ${component.name}`} onConfirm={remove} />
      </td>
    </tr>
  )
}

const ComponentsView = () => {
  const { loaded, reload, message, changed } = useListScreen((api) => api.components.list())
  const [loadedGroups] = useLoad((api) => api.componentGroups.list())
  const groups = loadedGroups.state === "ready" ? loadedGroups.value : []

  return (
    <>
      <h1>Components</h1>
      <StatusMessage text={message} />
      <Loading loaded={loaded}>
        {(components) =>
          components.length === 0
            ? <p>No components yet. Create the first one below.</p>
            : (
              <Table caption="Components">
                <thead>
                  <tr>
                    <th scope="col">Component</th>
                    <th scope="col">Status</th>
                    <th scope="col">Actions</th>
                  </tr>
                </thead>
                <tbody>
                  {components.map((component) => (
                    <ComponentRow
                      key={component.id}
                      component={component}
                      groups={groups}
                      onChanged={changed}
                      reload={reload}
                    />
                  ))}
                </tbody>
              </Table>
            )}
      </Loading>
      <section aria-labelledby="new-component-title">
        <h2 id="new-component-title">New component</h2>
        <ComponentForm
          id="new-component"
          groups={groups}
          submitLabel="Create component"
          onSaved={(created) => changed(`${created.name} was created.`)}
        />
      </section>
    </>
  )
}

export const ComponentsScreen: Screen = { path: "components", title: "Components", View: ComponentsView }
