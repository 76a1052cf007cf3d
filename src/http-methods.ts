/** HTTP methods by what repeating them may do. */

/** Methods that change nothing (RFC 9110 §9.2.1): counted as reads, and safe to send to another instance. */
export const SAFE_METHODS: ReadonlySet<string> = new Set(['GET', 'HEAD', 'OPTIONS']);
