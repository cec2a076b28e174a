export const DEFAULT_PAGE_SIZE = 50;
export const MAX_PAGE_SIZE = 100;

export interface PageRequest {
  readonly page: number;
  readonly pageSize: number;
}

export interface Page<T> {
  readonly items: readonly T[];
  readonly total: number;
  readonly page: number;
  readonly pageSize: number;
  readonly totalPages: number;
}

export function pageOffset({ page, pageSize }: PageRequest): number {
  return (page - 1) * pageSize;
}

export function toPage<T>(items: readonly T[], total: number, request: PageRequest): Page<T> {
  return { items, total, ...request, totalPages: Math.ceil(total / request.pageSize) };
}
