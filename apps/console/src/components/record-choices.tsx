"use client";
import Link from "next/link";
import { useAllResourceItems } from "../lib/resource-lists";
import { FilterField } from "./form-fields";

interface Choice {
  value: string;
  label: string;
}

/**
 * The issuers and credential configurations of this environment, as filter choices for the record lists
 * (transactions, credentials), and the issuer's name for an id (the records carry only the id).
 */
export function useIssuerAndConfigurationChoices() {
  const issuers = useAllResourceItems("issuers");
  const configurations = useAllResourceItems("credentialConfigurations");
  const names = new Map((issuers.data?.items ?? []).map((i) => [i.id, i.displayName]));
  return {
    issuers: (issuers.data?.items ?? []).map((i) => ({ value: i.id, label: i.displayName })),
    configurations: (configurations.data?.items ?? []).map((c) => ({
      value: c.identifier,
      label: `${c.displayName} (${c.identifier})`,
    })),
    issuerName: (id: string) => names.get(id) ?? null,
  };
}

/**
 * A filter `<select>` over `choices`; a value not among them (a shared link naming an issuer since
 * removed, say) is kept as a choice of its own, so the form shows what the list is filtered by.
 */
export function ChoiceFilter({
  label,
  allLabel,
  value,
  onChange,
  choices,
}: {
  label: string;
  allLabel: string;
  value: string;
  onChange: (value: string) => void;
  choices: Choice[];
}) {
  const options =
    value && !choices.some((c) => c.value === value) ? [...choices, { value, label: value }] : choices;
  return (
    <FilterField label={label} allLabel={allLabel} value={value} onChange={onChange} options={options} />
  );
}

/** An issuer by name, with its id beneath (the id alone while the names load, or for one not listed). */
export function IssuerCell({ id, name }: { id: string; name: string | null }) {
  return name ? (
    <>
      {name}
      <div className="hint">
        <code>{id}</code>
      </div>
    </>
  ) : (
    <code>{id}</code>
  );
}

/** A time as the viewer's locale writes it, in a `<time>` element. */
export function Time({ at }: { at: string }) {
  return <time dateTime={at}>{new Date(at).toLocaleString()}</time>;
}

/** The credential configuration and issuer filters of the issuance record lists (transactions, credentials). */
export function ConfigurationAndIssuerFilters({
  choices,
  configuration,
  issuerId,
  onConfiguration,
  onIssuerId,
}: {
  choices: ReturnType<typeof useIssuerAndConfigurationChoices>;
  configuration: string;
  issuerId: string;
  onConfiguration: (value: string) => void;
  onIssuerId: (value: string) => void;
}) {
  return (
    <>
      <ChoiceFilter
        label="Credential configuration"
        allLabel="All configurations"
        value={configuration}
        onChange={onConfiguration}
        choices={choices.configurations}
      />
      <ChoiceFilter
        label="Issuer"
        allLabel="All issuers"
        value={issuerId}
        onChange={onIssuerId}
        choices={choices.issuers}
      />
    </>
  );
}

/** A record's id as a link to its page. */
export function RecordLink({ href, id }: { href: string; id: string }) {
  return (
    <Link href={href}>
      <code>{id}</code>
    </Link>
  );
}
