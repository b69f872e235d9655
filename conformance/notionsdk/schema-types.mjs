// TYPES are the @notionhq/client response types the suite validates
// against: the endpoint answers and the full objects inside them.
// gen-schemas.mjs generates a schema for each; sdk.mjs refuses schemas
// generated from another list. Adding a type here makes
// scripts/install-npm.sh regenerate them.
export const TYPES = [
  "CreatePageResponse",
  "GetPageResponse",
  "UpdatePageResponse",
  "AppendBlockChildrenResponse",
  "ListBlockChildrenResponse",
  "GetBlockResponse",
  "UpdateBlockResponse",
  "DeleteBlockResponse",
  "CreateDatabaseResponse",
  "GetDatabaseResponse",
  "UpdateDatabaseResponse",
  "QueryDatabaseResponse",
  "CreateFileUploadResponse",
  "SendFileUploadResponse",
  "CompleteFileUploadResponse",
  "GetFileUploadResponse",
  "ListFileUploadsResponse",
  "GetSelfResponse",
  "SearchResponse",
  "PageObjectResponse",
  "BlockObjectResponse",
  "DatabaseObjectResponse",
  "FileUploadObjectResponse",
];

// TYPES5 are the response types of @notionhq/client 5.x (installed as
// notion-sdk-5) that sdk5.mjs validates against, on the SDK's default
// Notion-Version: data sources and views beside pages and databases.
export const TYPES5 = [
  "CreatePageResponse",
  "GetPageResponse",
  "UpdatePageResponse",
  "AppendBlockChildrenResponse",
  "ListBlockChildrenResponse",
  "CreateDatabaseResponse",
  "GetDatabaseResponse",
  "UpdateDatabaseResponse",
  "CreateDataSourceResponse",
  "GetDataSourceResponse",
  "UpdateDataSourceResponse",
  "QueryDataSourceResponse",
  "SearchResponse",
  "CreateViewResponse",
  "GetViewResponse",
  "UpdateViewResponse",
  "DeleteViewResponse",
  "ListDatabaseViewsResponse",
  "PageObjectResponse",
  "BlockObjectResponse",
  "DatabaseObjectResponse",
  "DataSourceObjectResponse",
  "DataSourceViewObjectResponse",
];
