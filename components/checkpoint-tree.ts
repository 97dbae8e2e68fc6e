/**
 * The checkpoint's flat file list (paths relative to the checkpoint) as a tree for the inspector,
 * directories first then files, batch-numbered names in numeric order (offsets/10 after
 * offsets/9, as the protocol reads them, not as a string sort would put them).
 */
export interface TreeNode {
  name: string;
  path: string;
  /** Files only. */
  size?: number;
  children?: TreeNode[];
}

const byName = (a: TreeNode, b: TreeNode) => {
  if (!!a.children !== !!b.children) return a.children ? -1 : 1;
  const na = /^\d+$/.test(a.name) ? Number(a.name) : NaN;
  const nb = /^\d+$/.test(b.name) ? Number(b.name) : NaN;
  if (!Number.isNaN(na) && !Number.isNaN(nb)) return na - nb;
  return a.name < b.name ? -1 : a.name > b.name ? 1 : 0;
};

export function buildTree(files: { path: string; size: number }[]): TreeNode[] {
  const root: TreeNode = { name: '', path: '', children: [] };
  for (const f of files) {
    const parts = f.path.split('/');
    let node = root;
    parts.forEach((part, i) => {
      const path = parts.slice(0, i + 1).join('/');
      const isFile = i === parts.length - 1;
      let child = node.children!.find((c) => c.name === part && !!c.children === !isFile);
      if (!child) {
        child = isFile ? { name: part, path, size: f.size } : { name: part, path, children: [] };
        node.children!.push(child);
      }
      node = child;
    });
  }
  const sort = (n: TreeNode) => {
    n.children?.sort(byName).forEach(sort);
  };
  sort(root);
  return root.children!;
}

/** Every file path in the tree, in display order (for tests and keyboard navigation). */
export function flattenFiles(nodes: TreeNode[]): string[] {
  return nodes.flatMap((n) => (n.children ? flattenFiles(n.children) : [n.path]));
}
