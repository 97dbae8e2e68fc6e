/**
 * A value bound for the span of one synchronous call (a physical planning), which the expression
 * compiler below it reads without every call in between passing it on: the scalar subqueries'
 * results, a correlated subquery's outer values, the values computed for its tuples. A binding
 * inside another is undone when its call returns or throws.
 */
export interface PlanningBinding<T> {
  bind<R>(value: T | undefined, f: () => R): R;
  current(): T | undefined;
}

export function planningBinding<T>(): PlanningBinding<T> {
  let current: T | undefined;
  return {
    bind(value, f) {
      const before = current;
      current = value;
      try {
        return f();
      } finally {
        current = before;
      }
    },
    current: () => current,
  };
}
