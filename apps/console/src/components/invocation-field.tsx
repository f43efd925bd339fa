import { INVOCATION_SCHEMES, type Invocation } from "@cred/contracts/invocation";
import { ChoiceField } from "./form-fields";

/** Which custom URL scheme the wallet link uses (the API's `invocation`), for offers or presentation requests. */
export function InvocationField({
  protocol,
  value,
  onChange,
}: {
  protocol: keyof typeof INVOCATION_SCHEMES;
  value: Invocation;
  onChange: (value: Invocation) => void;
}) {
  const schemes = INVOCATION_SCHEMES[protocol];
  return (
    <ChoiceField
      label="Wallet link"
      value={value}
      onChange={(v) => onChange(v as Invocation)}
      choices={[
        { value: "openid", label: `${schemes.openid} (OpenID)` },
        { value: "haip", label: `${schemes.haip} (HAIP wallets)` },
      ]}
    />
  );
}
