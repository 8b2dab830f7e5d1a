/**
 * What a status page shows: every public component, or a chosen list of groups and components
 * in the order readers see them. Ordering is by buttons (move up, move down, remove), so it works
 * from the keyboard and with a screen reader; a live region says what each press did, and a
 * preview lists the names the page will show, in order.
 */
import { useEffect, useState } from "preact/hooks"

import type { Component } from "../../../../domain/Component.js"
import type { ComponentGroup } from "../../../../domain/ComponentGroup.js"
import type { PageItem } from "../../../../domain/StatusPage.js"

type ComponentJson = typeof Component.json.Type
type GroupJson = typeof ComponentGroup.json.Type

const itemKey = (item: PageItem) => `${item.type}:${item.id}`

/** An item's name and kind as the catalogue has them; an id it no longer knows is shown as it is. */
const describe = (
  item: PageItem,
  components: ReadonlyArray<ComponentJson>,
  groups: ReadonlyArray<GroupJson>
): { readonly name: string; readonly isPublic: boolean } => {
  const found = item.type === "group"
    ? groups.find((group) => group.id === item.id)
    : components.find((component) => component.id === item.id)
  return found
    ? { name: found.name, isPublic: found.isPublic }
    : { name: `Unknown ${item.type} ${item.id}`, isPublic: false }
}

const kindLabel = { component: "Component", group: "Group" } as const

/** The names a page lists, in order: a group with its public components under it. */
const PagePreview = (props: {
  readonly id: string
  readonly items: ReadonlyArray<PageItem> | null
  readonly components: ReadonlyArray<ComponentJson>
  readonly groups: ReadonlyArray<GroupJson>
}) => {
  const publicComponents = props.components.filter((component) => component.isPublic)
  const membersOf = (groupId: string) => publicComponents.filter((component) => component.groupId === groupId)
  const shown = props.items?.filter((item) => describe(item, props.components, props.groups).isPublic)
  return (
    <div class="page-preview" role="region" aria-labelledby={`${props.id}-preview-title`}>
      <p id={`${props.id}-preview-title`}>
        <strong>Preview</strong> <span class="muted">what the page lists, in order</span>
      </p>
      {props.items === null
        ? publicComponents.length === 0
          ? <p class="muted">No public component yet.</p>
          : (
            <ul>
              {publicComponents.map((component) => {
                const group = props.groups.find((candidate) => candidate.id === component.groupId)
                return <li key={component.id}>{component.name}{group?.isPublic && ` (in ${group.name})`}</li>
              })}
            </ul>
          )
        : shown!.length === 0
        ? <p class="muted">Nothing: the page lists no component.</p>
        : (
          <ol>
            {shown!.map((item) => (
              <li key={itemKey(item)}>
                {describe(item, props.components, props.groups).name}
                {item.type === "group" && (
                  <ul>
                    {membersOf(item.id).length === 0
                      ? <li class="muted">no public component</li>
                      : membersOf(item.id).map((component) => <li key={component.id}>{component.name}</li>)}
                  </ul>
                )}
              </li>
            ))}
          </ol>
        )}
    </div>
  )
}

export const PageItemsEditor = (props: {
  /** Unique within the page; prefixes every control's id. */
  readonly id: string
  /** Null: every public component. */
  readonly items: ReadonlyArray<PageItem> | null
  readonly components: ReadonlyArray<ComponentJson>
  readonly groups: ReadonlyArray<GroupJson>
  readonly onChange: (items: ReadonlyArray<PageItem> | null) => void
  readonly error?: string | undefined
}) => {
  const { id, items, components, groups } = props
  // The chosen list survives a switch to "every public component" and back.
  const [kept, setKept] = useState<ReadonlyArray<PageItem>>(items ?? [])
  const [said, setSaid] = useState("")
  const [addChoice, setAddChoice] = useState("")
  // The button to focus once the list has been drawn again after a move or a removal.
  const [focusNext, setFocusNext] = useState<string | null>(null)
  useEffect(() => {
    if (focusNext === null) return
    setFocusNext(null)
    const target = document.getElementById(focusNext) as HTMLButtonElement | null
    if (target && !target.disabled) target.focus()
    else document.getElementById(focusNext.replace(/-(up|down)$/, (_, way) => way === "up" ? "-down" : "-up"))?.focus()
  }, [focusNext])

  const name = (item: PageItem) => describe(item, components, groups).name
  const buttonId = (item: PageItem, action: string) => `${id}-${item.type}-${item.id}-${action}`
  const choose = (next: ReadonlyArray<PageItem>) => {
    setKept(next)
    props.onChange(next)
  }
  const move = (index: number, by: -1 | 1) => {
    if (items === null) return
    const item = items[index]!
    const next = [...items]
    next.splice(index, 1)
    next.splice(index + by, 0, item)
    choose(next)
    setSaid(`${name(item)} moved to position ${index + by + 1} of ${next.length}.`)
    setFocusNext(buttonId(item, by === -1 ? "up" : "down"))
  }
  const remove = (index: number) => {
    if (items === null) return
    const item = items[index]!
    const next = items.filter((_, at) => at !== index)
    choose(next)
    setSaid(`${name(item)} removed.`)
    const neighbour = next[index] ?? next[index - 1]
    setFocusNext(neighbour ? buttonId(neighbour, "remove") : `${id}-add`)
  }
  const chosenKeys = new Set((items ?? []).map(itemKey))
  const addableGroups = groups.filter((group) => !chosenKeys.has(`group:${group.id}`))
  const addableComponents = components.filter((component) => !chosenKeys.has(`component:${component.id}`))
  const add = () => {
    if (items === null || addChoice === "") return
    const [type, ...rest] = addChoice.split(":")
    const item: PageItem = { type: type === "group" ? "group" : "component", id: rest.join(":") }
    choose([...items, item])
    setAddChoice("")
    setSaid(`${name(item)} added at position ${items.length + 1}.`)
  }

  return (
    <>
      <fieldset aria-describedby={props.error ? `${id}-error` : undefined}>
        <legend>What the page shows</legend>
        <div class="field checkbox">
          <input
            id={`${id}-every`}
            type="radio"
            name={`${id}-shows`}
            checked={items === null}
            onChange={() => props.onChange(null)}
          />
          <label for={`${id}-every`}>Every public component, grouped as the catalogue groups them</label>
        </div>
        <div class="field checkbox">
          <input
            id={`${id}-chosen`}
            type="radio"
            name={`${id}-shows`}
            checked={items !== null}
            onChange={() => props.onChange(kept)}
          />
          <label for={`${id}-chosen`}>Chosen groups and components, in this order</label>
        </div>
        {items !== null && (
          <>
            {items.length === 0
              ? <p class="muted">Nothing chosen yet: add a group or a component below.</p>
              : (
                <ol class="page-items" aria-label="Chosen groups and components">
                  {items.map((item, index) => {
                    const { name: itemName, isPublic } = describe(item, components, groups)
                    return (
                      <li key={itemKey(item)}>
                        <span>
                          {itemName}
                          <span class="badge">{kindLabel[item.type]}</span>
                          {!isPublic && <span class="badge">private: not shown</span>}
                        </span>
                        <span class="row-actions">
                          <button
                            type="button"
                            id={buttonId(item, "up")}
                            aria-label={`Move up ${itemName}`}
                            disabled={index === 0}
                            onClick={() => move(index, -1)}
                          >
                            Move up
                          </button>
                          <button
                            type="button"
                            id={buttonId(item, "down")}
                            aria-label={`Move down ${itemName}`}
                            disabled={index === items.length - 1}
                            onClick={() => move(index, 1)}
                          >
                            Move down
                          </button>
                          <button
                            type="button"
                            id={buttonId(item, "remove")}
                            aria-label={`Remove ${itemName}`}
                            onClick={() => remove(index)}
                          >
                            Remove
                          </button>
                        </span>
                      </li>
                    )
                  })}
                </ol>
              )}
            <div class="field">
              <label for={`${id}-add`}>Add a group or component</label>
              <div class="actions">
                <select
                  id={`${id}-add`}
                  value={addChoice}
                  onChange={(event) => setAddChoice(event.currentTarget.value)}
                >
                  <option value="">Choose…</option>
                  {addableGroups.length > 0 && (
                    <optgroup label="Groups">
                      {addableGroups.map((group) => (
                        <option key={group.id} value={`group:${group.id}`}>{group.name}</option>
                      ))}
                    </optgroup>
                  )}
                  {addableComponents.length > 0 && (
                    <optgroup label="Components">
                      {addableComponents.map((component) => (
                        <option key={component.id} value={`component:${component.id}`}>{component.name}</option>
                      ))}
                    </optgroup>
                  )}
                </select>
                <button type="button" disabled={addChoice === ""} onClick={add}>Add</button>
              </div>
            </div>
          </>
        )}
        <p class="hint" role="status">{said}</p>
        {props.error && <p id={`${id}-error`} class="field-error">{props.error}</p>}
      </fieldset>
      <PagePreview id={id} items={items} components={components} groups={groups} />
    </>
  )
}
