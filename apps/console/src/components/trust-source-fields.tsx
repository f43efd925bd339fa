"use client";
import { useQuery } from "@tanstack/react-query";
import { useId } from "react";
import { useAllResourceItems } from "../lib/resource-lists";
import { useTRPC } from "../lib/trpc";
import { ChoiceField } from "./form-fields";
import { useCan } from "./session";

export interface TrustSourceChoice {
  trustSourceId: string;
  serviceType: string;
}

/**
 * "Trust source + service type" (docs/api/trust-sources.md), as policies' trusted issuers and issuers'
 * attestation trust name them: a trust source of this environment and the ETSI service type whose
 * services' certificates are trusted; the types the chosen source's lists name are suggested.
 */
export function TrustSourceFields({
  value,
  onChange,
  defaultServiceType,
  purpose,
}: {
  value: TrustSourceChoice;
  onChange: (value: TrustSourceChoice) => void;
  defaultServiceType: string;
  /** What the trusted services' certificates are for, e.g. "the issuer's x5c chain must end at a CA it names". */
  purpose: string;
}) {
  const trpc = useTRPC();
  const canRead = useCan("trust-sources.read");
  const sources = useAllResourceItems("trustSources");
  const services = useQuery({
    ...trpc.trustSources.listServices.queryOptions({ trustSourceId: value.trustSourceId, limit: 100 }),
    enabled: canRead && Boolean(value.trustSourceId),
  });
  const listId = useId();
  if (!canRead) return <p className="hint">Your role cannot read trust sources.</p>;
  const types = [...new Set((services.data?.data ?? []).map((s) => s.serviceType))].sort();
  const items = sources.data?.items ?? [];
  return (
    <div className="grid">
      <ChoiceField
        label="Trust source"
        value={value.trustSourceId}
        onChange={(trustSourceId) =>
          onChange({ trustSourceId, serviceType: value.serviceType || defaultServiceType })
        }
        choices={items.map((s) => ({
          value: s.id,
          label: `${s.description ?? s.url} (${s.kind.toUpperCase()}, ${s.status})`,
        }))}
      />
      <label>
        Service type (URI)
        <input
          required
          list={listId}
          value={value.serviceType}
          placeholder={defaultServiceType}
          onChange={(e) => onChange({ ...value, serviceType: e.target.value })}
        />
        <datalist id={listId}>
          {types.map((type) => (
            <option key={type} value={type} />
          ))}
        </datalist>
        <span className="hint">
          Services of this type with status granted are trusted: {purpose}.
          {items.length === 0 && " No trust sources yet: add one under Trust sources."}
        </span>
      </label>
    </div>
  );
}
