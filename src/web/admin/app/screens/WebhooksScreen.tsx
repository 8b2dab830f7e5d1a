/**
 * Webhooks: creating one (the signing secret is shown once), a test send with its result,
 * switching a webhook on and off, its recent deliveries, and deleting it.
 */
import { useState } from "preact/hooks"

import { everyItem } from "../../../../client/Pages.js"
import type { Component } from "../../../../domain/Component.js"
import type { CreatedWebhook, DeliveryResult, Webhook, WebhookType } from "../../../../domain/Webhook.js"
import { isOnCallType } from "../../../../domain/Webhook.js"
import { optionsOf, webhookTypeLabel } from "../../../Labels.js"
import { useCan } from "../core/access.js"
import type { Screen } from "../core/Screen.js"
import { componentNames } from "../ui/ComponentPicker.js"
import { ConfirmButton, FailureMessage, When } from "../ui/feedback.js"
import { Checkbox, Fieldset, SelectField, TextField } from "../ui/fields.js"
import { useComponentChoices, useListScreen, useLoad, useSubmit } from "../ui/requests.js"
import {
  NewSection,
  OpenButton,
  ResourceForm,
  ResourcePage,
  ResourceTable,
  useOpenPart,
  useRowActions
} from "../ui/resources.js"

const webhookTypes = optionsOf(webhookTypeLabel)

type WebhookJson = typeof Webhook.json.Type
type ComponentJson = typeof Component.json.Type

const describeResult = (result: DeliveryResult) =>
  result.success
    ? `Delivered: HTTP ${result.statusCode} in ${result.durationMs} ms.`
    : `Failed${result.statusCode === null ? "" : `: HTTP ${result.statusCode}`}${
      result.error ? ` (${result.error})` : ""
    } after ${result.durationMs} ms.`

const Deliveries = ({ webhook }: { readonly webhook: WebhookJson }) => {
  const [loaded] = useLoad((api) => api.webhooks.deliveries({ params: { id: webhook.id }, query: {} }))
  return (
    <ResourceTable
      loaded={loaded}
      caption={`Recent deliveries of ${webhook.name}`}
      columns={["When", "Event", "Attempt", "Result", "Time"]}
      empty="No deliveries yet. Test sends one now."
    >
      {(attempt) => (
        <tr key={attempt.id}>
          <td>
            <When at={attempt.attemptedAt} />
          </td>
          <td>{attempt.event}{attempt.test && <span class="badge">test</span>}</td>
          <td>{attempt.attempt}</td>
          <td class={attempt.success ? "result-ok" : "result-bad"}>
            {attempt.success ? "Delivered" : "Failed"}
            {attempt.statusCode !== null && ` (HTTP ${attempt.statusCode})`}
            {attempt.error && <span class="small">{attempt.error}</span>}
          </td>
          <td>{attempt.durationMs} ms</td>
        </tr>
      )}
    </ResourceTable>
  )
}

const WebhookRow = (props: {
  readonly webhook: WebhookJson
  readonly components: ReadonlyArray<ComponentJson>
  readonly onChanged: (message: string) => void
}) => {
  const { webhook } = props
  const [testResult, setTestResult] = useState<DeliveryResult | null>(null)
  const [testing, setTesting] = useState(false)
  const deliveries = useOpenPart(props.onChanged)
  const [deliveriesVersion, setDeliveriesVersion] = useState(0)
  const { failure, act } = useRowActions(props.onChanged)
  const can = useCan()

  const test = async () => {
    setTesting(true)
    setTestResult(null)
    const outcome = await act((api) => api.webhooks.test({ params: { id: webhook.id } }))
    setTesting(false)
    if (outcome.ok) {
      setTestResult(outcome.value)
      setDeliveriesVersion((version) => version + 1)
    }
  }
  const toggle = () =>
    act(
      (api) => api.webhooks.toggle({ params: { id: webhook.id } }),
      (saved) => `${webhook.name} is now ${saved.isActive ? "active" : "paused"}.`
    )
  const remove = () =>
    act((api) => api.webhooks.remove({ params: { id: webhook.id } }), () => `${webhook.name} was deleted.`)

  return (
    <tr>
      <th scope="row">
        {webhook.name}
        {!webhook.isActive && <span class="badge">paused</span>}
        <p class="small muted">
          {webhookTypeLabel[webhook.type]} · <code>{webhook.url}</code> · {webhook.componentIds === null
            ? "all components"
            : componentNames(props.components, webhook.componentIds)}
        </p>
        {webhook.consecutiveFailures > 0 && (
          <p class="small result-bad">
            {webhook.consecutiveFailures} failed deliveries in a row{webhook.lastError && `: ${webhook.lastError}`}
          </p>
        )}
        <p class="small" role="status">
          {testResult && (
            <span class={testResult.success ? "result-ok" : "result-bad"}>Test: {describeResult(testResult)}</span>
          )}
        </p>
        <FailureMessage failure={failure} />
        {deliveries.open && (
          <section aria-label={`Deliveries of ${webhook.name}`}>
            <Deliveries key={deliveriesVersion} webhook={webhook} />
          </section>
        )}
      </th>
      <td>
        {/* A toggle keeps its name; aria-pressed (and its look) carries the state. */}
        {can("webhooks.toggle")
          ? (
            <button type="button" class="toggle" aria-pressed={webhook.isActive} onClick={toggle}>
              Active<span class="visually-hidden">{webhook.name}</span>
            </button>
          )
          : webhook.isActive
          ? "Active"
          : "Paused"}
      </td>
      <td class="row-actions">
        {can("webhooks.test") && (
          <button type="button" onClick={test} disabled={testing}>
            {testing ? "Testing…" : "Test"}
            <span class="visually-hidden">{webhook.name}</span>
          </button>
        )}
        <OpenButton
          open={deliveries.open}
          onToggle={deliveries.toggle}
          label="Deliveries"
          hidden={`of ${webhook.name}`}
        />
        {can("webhooks.remove") && (
          <ConfirmButton label="Delete" confirmLabel={`Delete ${webhook.name}`} onConfirm={remove} />
        )}
      </td>
    </tr>
  )
}

const NewWebhook = (props: {
  readonly components: ReadonlyArray<ComponentJson>
  readonly onCreated: (webhook: typeof CreatedWebhook.Type) => void
}) => {
  const [name, setName] = useState("")
  const [url, setUrl] = useState("")
  const [type, setType] = useState<WebhookType>("generic")
  const [notifyOnIncident, setIncident] = useState(true)
  const [notifyOnMaintenance, setMaintenance] = useState(true)
  const [notifyOnComponentChange, setComponentChange] = useState(true)
  const [notifyOnMonitor, setMonitor] = useState(false)
  // On-call tools page on monitors (and, if asked, incidents) with the key their integration gives.
  const [integrationKey, setIntegrationKey] = useState("")
  const onCall = isOnCallType(type)
  const chooseType = (next: WebhookType) => {
    setType(next)
    // The defaults of the API for the type: the on-call formats page on monitor events only.
    const nextOnCall = isOnCallType(next)
    setIncident(!nextOnCall)
    setMaintenance(!nextOnCall)
    setComponentChange(!nextOnCall)
    setMonitor(nextOnCall)
  }
  const [componentIds, setComponentIds] = useState<ReadonlyArray<string>>([])
  const { failure, busy, submit, fieldError } = useSubmit()

  const save = async () => {
    const payload = {
      name: name.trim(),
      url: url.trim(),
      type,
      notifyOnIncident,
      notifyOnComponentChange: onCall ? false : notifyOnComponentChange,
      notifyOnMaintenance: onCall ? false : notifyOnMaintenance,
      notifyOnMonitor,
      componentIds: componentIds.length === 0 ? null : componentIds,
      ...(onCall ? { integrationKey: integrationKey.trim() } : {})
    }
    const outcome = await submit((api) => api.webhooks.create({ payload }))
    if (outcome.ok) {
      setName("")
      setUrl("")
      setIntegrationKey("")
      setComponentIds([])
      props.onCreated(outcome.value)
    }
  }

  return (
    <ResourceForm id="new-webhook" failure={failure} busy={busy} submitLabel="Create webhook" onSubmit={save}>
      <TextField id="webhook-name" label="Name" required value={name} onInput={setName} error={fieldError("name")} />
      <TextField
        id="webhook-url"
        label="URL"
        type="url"
        inputMode="url"
        required
        value={url}
        onInput={setUrl}
        error={fieldError("url")}
      />
      <SelectField
        id="webhook-type"
        label="Format"
        value={type}
        options={webhookTypes}
        onChange={chooseType}
        error={fieldError("type")}
      />
      {onCall && (
        <TextField
          id="webhook-integration-key"
          label={type === "pagerduty" ? "Integration key" : "API key"}
          type="password"
          autoComplete="off"
          required
          value={integrationKey}
          onInput={setIntegrationKey}
          hint={type === "pagerduty"
            ? "The Integration Key of an Events API v2 integration of your PagerDuty service. It is never shown again."
            : "The API Key of an API integration in Opsgenie. It is never shown again."}
          error={fieldError("integrationKey")}
        />
      )}
      <Fieldset legend="Notify on">
        <Checkbox id="webhook-incident" label="Incidents" checked={notifyOnIncident} onChange={setIncident} />
        {!onCall && (
          <>
            <Checkbox
              id="webhook-maintenance"
              label="Maintenance"
              checked={notifyOnMaintenance}
              onChange={setMaintenance}
            />
            <Checkbox
              id="webhook-component"
              label="Component status changes"
              checked={notifyOnComponentChange}
              onChange={setComponentChange}
            />
          </>
        )}
        <Checkbox
          id="webhook-monitor"
          label="Monitors going down, degraded and up"
          checked={notifyOnMonitor}
          onChange={setMonitor}
        />
      </Fieldset>
      {props.components.length > 0 && (
        <Fieldset legend="Only about these components">
          <p class="hint">Leave all unchecked to hear about every component.</p>
          {props.components.map((component) => (
            <Checkbox
              key={component.id}
              id={`webhook-about-${component.id}`}
              label={component.name}
              checked={componentIds.includes(component.id)}
              onChange={(checked) =>
                setComponentIds(
                  checked ? [...componentIds, component.id] : componentIds.filter((id) => id !== component.id)
                )}
            />
          ))}
          {fieldError("componentIds") && <p class="field-error">{fieldError("componentIds")}</p>}
        </Fieldset>
      )}
    </ResourceForm>
  )
}

const WebhooksView = () => {
  const { loaded, message, changed } = useListScreen((api) => everyItem(api.webhooks.list))
  const componentList = useComponentChoices()
  const [created, setCreated] = useState<typeof CreatedWebhook.Type | null>(null)
  const can = useCan()

  return (
    <ResourcePage title="Webhooks" message={message}>
      <ResourceTable
        loaded={loaded}
        caption="Webhooks"
        columns={["Webhook", "Active", "Actions"]}
        empty="No webhooks yet. Add one below to tell your chat or on-call tool when incidents open, change and resolve."
      >
        {(webhook) => <WebhookRow key={webhook.id} webhook={webhook} components={componentList} onChanged={changed} />}
      </ResourceTable>
      {created?.secret && (
        <div class="reveal" role="region" aria-labelledby="webhook-secret-title">
          <h2 id="webhook-secret-title">Signing secret of {created.name}</h2>
          <p>
            Copy it now: it is shown only this once. Receivers verify <code>X-Service-Signature</code> with it.
          </p>
          <output class="secret" aria-label="Signing secret">{created.secret}</output>
        </div>
      )}
      {can("webhooks.create") && (
        <NewSection id="new-webhook" title="New webhook">
          <NewWebhook
            components={componentList}
            onCreated={(webhook) => {
              setCreated(webhook)
              changed(`${webhook.name} was created.`)
            }}
          />
        </NewSection>
      )}
    </ResourcePage>
  )
}

export const WebhooksScreen: Screen = {
  path: "webhooks",
  group: "notify",
  needs: "webhooks.list",
  title: "Webhooks",
  View: WebhooksView
}
