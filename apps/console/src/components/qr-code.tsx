"use client";
import QRCode from "qrcode";
import { useEffect, useState } from "react";

/** A QR code rendered locally (no network), with the encoded link as its text alternative. */
export function QrCode({ value, label }: { value: string; label: string }) {
  const [src, setSrc] = useState<string | null>(null);
  useEffect(() => {
    let live = true;
    QRCode.toDataURL(value, { errorCorrectionLevel: "M", margin: 2, width: 256 }).then((url) => {
      if (live) setSrc(url);
    });
    return () => {
      live = false;
    };
  }, [value]);
  return (
    <figure className="qr">
      {src ? (
        <img src={src} width={256} height={256} alt={label} data-testid="qr-code" />
      ) : (
        <div className="qr-placeholder" role="status">
          Drawing QR code…
        </div>
      )}
      <figcaption>
        <label>
          Link
          <input readOnly value={value} onFocus={(e) => e.currentTarget.select()} data-testid="qr-link" />
        </label>
      </figcaption>
    </figure>
  );
}
