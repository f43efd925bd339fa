"use client";
import QRCode from "qrcode";
import { useEffect, useState } from "react";

/** A QR code rendered locally (no network), with the encoded link as its text alternative. */
export function QrCode({ value, label }: { value: string; label: string }) {
  const [src, setSrc] = useState<string | null>(null);
  const [tooLong, setTooLong] = useState(false);
  useEffect(() => {
    let live = true;
    setSrc(null);
    setTooLong(false);
    // A link beyond a QR code's capacity (a request passed by value is several kB) cannot be drawn.
    QRCode.toDataURL(value, { errorCorrectionLevel: "M", margin: 2, width: 256 }).then(
      (url) => {
        if (live) setSrc(url);
      },
      () => {
        if (live) setTooLong(true);
      },
    );
    return () => {
      live = false;
    };
  }, [value]);
  return (
    <figure className="qr">
      {src ? (
        <img src={src} width={256} height={256} alt={label} data-testid="qr-code" />
      ) : tooLong ? (
        <p className="hint" data-testid="qr-too-long">
          Too long for a QR code ({value.length} characters): open the link on the same device.
        </p>
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
