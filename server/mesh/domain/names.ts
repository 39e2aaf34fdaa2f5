// Names that select where an entry or token lives. Namespaces and admin partitions are DNS hostname
// labels in the real product (its namespace and partition APIs say "must be a valid DNS hostname
// label"), so they can never hold `/` or `.` and can never be confused with a path or a target id.
// Entry names are free text there (only "required"): this server keeps them so, and its store keys
// are structured, so a `/` in a name is just a character.

const DNS_LABEL = /^[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?$/;

/** Why `namespace` is not a namespace name, or undefined when it is one. */
export function checkNamespaceName(namespace: string): string | undefined {
  return DNS_LABEL.test(namespace) ? undefined : `Invalid namespace name ${JSON.stringify(namespace)}: must be a valid DNS hostname label`;
}

/** Why `partition` is not a partition name, or undefined when it is one. */
export function checkPartitionName(partition: string): string | undefined {
  return DNS_LABEL.test(partition) ? undefined : `Invalid partition name ${JSON.stringify(partition)}: must be a valid DNS hostname label`;
}
