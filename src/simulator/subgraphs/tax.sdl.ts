/** The tax subgraph's SDL (see tax.schema.ts for the resolvers and the decisions). */
export const taxTypeDefs = /* GraphQL */ `
  "Whether a classification or a rate applies."
  enum Status {
    ACTIVE
    INACTIVE
  }

  type PageInfo {
    hasNextPage: Boolean!
    endCursor: String
  }

  "A tax category that SKUs are assigned to (catalog SKU.taxClassificationId)."
  type Classification {
    id: ID!
    name: String!
    label: String!
    description: String
    status: Status!
    rates: [Rate!]!
    createdAt: String!
    updatedAt: String!
  }

  type RateValue {
    "Percent, e.g. 8.875."
    percentage: Float!
  }

  type Rate {
    id: ID!
    label: String!
    value: RateValue!
    "Null for a general rate of the area, used by classifications without rates of their own."
    classificationId: ID
    classification: Classification
    taxArea: TaxArea!
    status: Status!
    createdAt: String!
    updatedAt: String!
  }

  type TaxArea {
    id: ID!
    name: String!
    countryCode: String!
    adminArea1: String
    rates: [Rate!]!
  }

  type RateEdge {
    cursor: String!
    node: Rate!
  }

  type RateConnection {
    edges: [RateEdge!]!
    pageInfo: PageInfo!
    totalCount: Int!
  }

  "An amount in minor currency units."
  type TaxAmount {
    value: Int!
    currencyCode: String!
  }

  type TaxCalculationLine {
    reference: String
    classificationId: ID
    taxableAmount: TaxAmount!
    percentage: Float!
    tax: TaxAmount!
  }

  type TaxCalculation {
    taxArea: TaxArea!
    subtotal: TaxAmount!
    taxTotal: TaxAmount!
    total: TaxAmount!
    lines: [TaxCalculationLine!]!
  }

  type DeleteResult {
    id: ID!
    deleted: Boolean!
  }

  input CalculateTaxLineInput {
    reference: String
    classificationId: ID
    "Unit amount in minor units."
    amount: Int!
    quantity: Int = 1
  }

  input CalculateTaxInput {
    "Defaults to the store's first tax area."
    taxAreaId: ID
    currencyCode: String!
    lines: [CalculateTaxLineInput!]!
  }

  input RateValueInput {
    percentage: Float!
  }

  input MutationCreateRateInput {
    label: String!
    value: RateValueInput!
    classificationId: ID
    "Defaults to the store's first tax area."
    taxAreaId: ID
    status: Status = ACTIVE
  }

  input MutationUpdateRateInput {
    id: ID!
    label: String
    value: RateValueInput
    "Null makes the rate a general rate of its area."
    classificationId: ID
    status: Status
  }

  input MutationCreateClassificationInput {
    name: String!
    label: String!
    description: String
    status: Status = ACTIVE
  }

  input MutationUpdateClassificationInput {
    id: ID!
    name: String
    label: String
    description: String
    status: Status
  }

  input MutationCreateTaxAreaInput {
    name: String!
    countryCode: String!
    adminArea1: String
  }

  type Query {
    classification(id: ID!): Classification
    classifications(status: Status): [Classification!]!
    rate(id: ID!): Rate
    rates(
      first: Int
      after: String
      classificationId: ID
      taxAreaId: ID
      status: Status
    ): RateConnection!
    taxArea(id: ID!): TaxArea
    taxAreas: [TaxArea!]!
    calculateTax(input: CalculateTaxInput!): TaxCalculation!
  }

  type Mutation {
    createRate(input: MutationCreateRateInput!): Rate
    updateRate(input: MutationUpdateRateInput!): Rate
    deleteRate(id: ID!): DeleteResult
    createClassification(input: MutationCreateClassificationInput!): Classification
    updateClassification(input: MutationUpdateClassificationInput!): Classification
    deleteClassification(id: ID!): DeleteResult
    createTaxArea(input: MutationCreateTaxAreaInput!): TaxArea
  }
`;
