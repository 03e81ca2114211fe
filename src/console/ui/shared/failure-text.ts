/** The message of a failure, for an alert. */
export const failureText = (failure: unknown): string => (failure instanceof Error ? failure.message : String(failure));
