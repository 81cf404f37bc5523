/** The catalog subgraph's SDL (see catalog.schema.ts for the resolvers and the decisions). */
export const catalogTypeDefs = /* GraphQL */ `
  "An object with a catalog-wide id."
  interface Node {
    id: ID!
  }

  "Lifecycle of SKUs and SKU groups."
  enum Status {
    DRAFT
    ACTIVE
    ARCHIVED
  }

  enum PriceType {
    LIST
    SALE
    COST
  }

  "An amount in minor currency units (1999 = 19.99 in a two-decimal currency)."
  type Money {
    value: Int!
    currencyCode: String!
  }

  "An amount in minor currency units (1999 = 19.99 in a two-decimal currency)."
  input SimpleMoneyInput {
    value: Int!
    currencyCode: String!
  }

  type SKUPrice {
    type: PriceType!
    money: Money!
  }

  type SKUAttribute {
    name: String!
    value: String!
  }

  "A stock keeping unit: the sellable item of the catalog."
  type SKU implements Node {
    id: ID!
    "Merchant code, unique in the store."
    code: String!
    name: String!
    description: String
    status: Status!
    storeId: ID!
    prices: [SKUPrice!]!
    "The price of one type; the store's currency unless currencyCode is given."
    price(type: PriceType = LIST, currencyCode: String): Money
    categories: [Category!]!
    groups: [SKUGroup!]!
    "Id of a classification of the tax subgraph."
    taxClassificationId: ID
    attributes: [SKUAttribute!]!
    createdAt: String!
    updatedAt: String!
  }

  type SKUGroup implements Node {
    id: ID!
    name: String!
    description: String
    status: Status!
    skuCount: Int!
    skus(first: Int, after: String): SKUConnection!
    createdAt: String!
    updatedAt: String!
  }

  type Category implements Node {
    id: ID!
    name: String!
    slug: String!
    parent: Category
    children: [Category!]!
    "SKUs of this category and of its descendants."
    skus(first: Int, after: String): SKUConnection!
  }

  type PageInfo {
    hasNextPage: Boolean!
    hasPreviousPage: Boolean!
    startCursor: String
    endCursor: String
  }

  type SKUEdge {
    cursor: String!
    node: SKU!
  }

  type SKUConnection {
    edges: [SKUEdge!]!
    nodes: [SKU!]!
    pageInfo: PageInfo!
    totalCount: Int!
  }

  type SKUGroupEdge {
    cursor: String!
    node: SKUGroup!
  }

  type SKUGroupConnection {
    edges: [SKUGroupEdge!]!
    nodes: [SKUGroup!]!
    pageInfo: PageInfo!
    totalCount: Int!
  }

  input SKUFilter {
    status: Status
    "Includes the SKUs of descendant categories."
    categoryId: String
    groupId: String
    "Case-insensitive match on name or code."
    search: String
    codes: [String!]
  }

  input SKUPriceInput {
    type: PriceType = LIST
    money: SimpleMoneyInput!
  }

  input SKUAttributeInput {
    name: String!
    value: String!
  }

  input CreateSKUInput {
    code: String!
    name: String!
    description: String
    status: Status = DRAFT
    prices: [SKUPriceInput!]
    categoryIds: [String!]
    taxClassificationId: ID
    attributes: [SKUAttributeInput!]
  }

  input UpdateSKUInput {
    id: String!
    code: String
    name: String
    description: String
    "DRAFT or ACTIVE; archiving is archiveSku."
    status: Status
    categoryIds: [String!]
    taxClassificationId: ID
    attributes: [SKUAttributeInput!]
  }

  "Sets the given prices; prices of other (type, currency) pairs stay."
  input UpdateSKUPricesInput {
    skuId: String!
    prices: [SKUPriceInput!]!
  }

  input CreateSKUGroupInput {
    name: String!
    description: String
    skuIds: [String!]
  }

  input SKUGroupMembershipInput {
    groupId: String!
    skuIds: [String!]!
  }

  input CreateCategoryInput {
    name: String!
    slug: String
    parentId: String
  }

  type Query {
    node(id: ID!): Node
    sku(id: String!): SKU
    skuByCode(code: String!): SKU
    skus(first: Int, after: String, filter: SKUFilter): SKUConnection!
    skuGroup(id: String!): SKUGroup
    skuGroups(first: Int, after: String, status: Status): SKUGroupConnection!
    category(id: String!): Category
    categories(parentId: String): [Category!]!
  }

  type Mutation {
    createSku(input: CreateSKUInput!): SKU
    updateSku(input: UpdateSKUInput!): SKU
    archiveSku(id: String!): SKU
    updateSkuPrices(input: UpdateSKUPricesInput!): SKU
    createSkuGroup(input: CreateSKUGroupInput!): SKUGroup
    addSkusToGroup(input: SKUGroupMembershipInput!): SKUGroup
    removeSkusFromGroup(input: SKUGroupMembershipInput!): SKUGroup
    archiveSkuGroup(id: String!): SKUGroup
    createCategory(input: CreateCategoryInput!): Category
  }
`;
