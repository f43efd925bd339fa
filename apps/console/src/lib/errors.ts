/** What the console shows for a failed call: the API's message, its error code and the request id. */
export interface DescribedError {
  message: string;
  code: string | null;
  requestId: string | null;
  details: { target: string; message: string }[];
}

interface EnvelopeData {
  envelope?: {
    error?: {
      code?: string;
      message?: string;
      requestId?: string;
      details?: { target: string; message: string }[];
    };
  };
}

export function describeError(error: unknown): DescribedError {
  const data = (error as { data?: EnvelopeData | null } | null)?.data;
  const envelope = data?.envelope?.error;
  if (envelope?.message) {
    return {
      message: envelope.message,
      code: envelope.code ?? null,
      requestId: envelope.requestId ?? null,
      details: envelope.details ?? [],
    };
  }
  const message = error instanceof Error ? error.message : String(error);
  return { message: message || "Something went wrong.", code: null, requestId: null, details: [] };
}
