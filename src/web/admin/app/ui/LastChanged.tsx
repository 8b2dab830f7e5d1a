/**
 * "Last changed by …, …": the newest audit entry about an item, for its detail and edit views.
 * Says nothing while it loads or when it cannot be read: it is a hint, not the item itself.
 */
import type { ActorType } from "../../../../domain/Audit.js"
import { useCan } from "../core/access.js"
import { WhenText } from "./feedback.js"
import { useLoad } from "./requests.js"

const actorKind: Record<ActorType, string> = { user: "", apiKey: " (API key)", system: " (automation)" }

interface Target {
  readonly targetType: string
  readonly targetId: string
}

export const LastChanged = (props: Target) => useCan()("auditLog.list") ? <Latest {...props} /> : null

const Latest = (props: Target) => {
  const [latest] = useLoad((api) =>
    api.auditLog.list({ query: { targetType: props.targetType, targetId: props.targetId, limit: 1 } })
  )
  if (latest.state !== "ready") return null
  const entry = latest.value[0]
  return (
    <p class="small muted last-changed">
      {entry === undefined ? "No recorded changes." : (
        <>
          Last changed by {entry.actor.name}
          {actorKind[entry.actor.type]}, <WhenText at={entry.at} />
        </>
      )}
    </p>
  )
}
