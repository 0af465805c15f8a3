/**
 * Word lists of the demo generator: company name parts, industries with their SIC and
 * NAICS codes, places (city, state, country, postal code and phone patterns, sales
 * territory), people, job titles. Plain data; the generator combines them.
 *
 * Rules that keep generated company names unique (see company-names.ts): every entry is
 * one word, no two entries of the lists below differ only in letter case, and the name
 * prefixes, cores, legal forms and qualifiers are four disjoint sets.
 */

/** First word of a company name. A few carry an apostrophe or a non-ASCII letter on purpose. */
export const NAME_PREFIXES = [
  'Acme', 'Globex', 'Initech', 'Summit', 'Apex', 'Vertex', 'Pinnacle', 'Horizon', 'Evergreen', 'Bluewater',
  'Ironwood', 'Silverline', 'Northstar', 'Redrock', 'Clearwater', 'Brightstone', 'Granite', 'Cobalt', 'Crimson', 'Falcon',
  'Harborview', 'Juniper', 'Keystone', 'Lakeside', 'Maple', 'Meridian', 'Nimbus', 'Oakridge', 'Pacifica', 'Quantum',
  'Riverbend', 'Sapphire', 'Sterling', 'Timberline', 'Unity', 'Valleyview', 'Westfield', 'Yellowstone', 'Zenith', 'Alder',
  'Beacon', 'Cascade', 'Deltaworks', 'Ember', 'Fairview', 'Goldcrest', 'Highland', 'Insight', 'Jasper', 'Kestrel',
  'Lighthouse', 'Magnolia', 'Northgate', 'Onyx', 'Prairie', 'Quarry', 'Rainier', 'Sequoia', 'Tidewater', 'Upland',
  'Vantage', 'Willow', 'Atlas', 'Boulder', 'Cedarwood', 'Dawson', 'Elmhurst', 'Foxglove', 'Garnet', 'Hawthorne',
  'Ivory', 'Jade', 'Kingfisher', 'Lumina', 'Mosaic', 'Nova', 'Orchid', 'Polaris', 'Ridgeline', 'Solstice',
  'Trident', 'Ventura', 'Wavecrest', 'Aurora', 'Bristlecone', 'Copperfield', 'Driftwood', 'Emerald', 'Fjord', 'Greystone',
  "O'Brien", "O'Neill", "D'Arcy", 'Müller', 'Björk', 'Élan', 'Lumière', 'Zürich', 'Brügge', 'Crème',
] as const;

/** Second word of a company name, with the index of its industry in INDUSTRIES. */
export const NAME_CORES: ReadonlyArray<readonly [string, number]> = [
  ['Logistics', 5], ['Health', 1], ['Systems', 0], ['Software', 0], ['Analytics', 0], ['Foods', 16], ['Energy', 7], ['Robotics', 3],
  ['Financial', 2], ['Media', 9], ['Biotech', 10], ['Manufacturing', 3], ['Networks', 8], ['Retail', 4], ['Motors', 15], ['Labs', 10],
  ['Pharmaceuticals', 10], ['Insurance', 14], ['Capital', 2], ['Aerospace', 18], ['Apparel', 4], ['Hospitality', 12], ['Learning', 6], ['Dynamics', 3],
  ['Devices', 3], ['Materials', 3], ['Construction', 11], ['Telecom', 8], ['Security', 0], ['Freight', 5], ['Outfitters', 4], ['Medical', 1],
  ['Solar', 7], ['Water', 7], ['Textiles', 3], ['Brewing', 16], ['Instruments', 3], ['Semiconductors', 3], ['Marine', 5], ['Agritech', 16],
  ['Data', 0], ['Cloud', 0], ['Payments', 2], ['Realty', 17], ['Studios', 9], ['Clinics', 1], ['Pharmacy', 1], ['Transit', 5],
  ['Utilities', 7], ['Academy', 6], ['Consulting', 19], ['Hotels', 12], ['Defense', 18], ['Bank', 2],
];

/** Last word of a company name ('' = none). */
export const LEGAL_FORMS = ['', 'Inc.', 'LLC', 'Ltd.', 'Corp.', 'Co.', 'Group', 'Holdings', 'GmbH', 'S.A.', 'PLC', 'AG'] as const;

/** Inserted after the core once the prefix x core x form combinations are used up. */
export const NAME_QUALIFIERS = [
  'Americas', 'Europe', 'Nordic', 'Pacific', 'Atlantic', 'Midwest', 'Southwest', 'Northeast', 'Coastal', 'Continental',
  'Global', 'International', 'National', 'Regional', 'United', 'Central', 'Western', 'Eastern', 'Southern', 'Northern',
  'Iberia', 'Alpine', 'Baltic', 'Gulf', 'Mountain', 'Metro', 'Capitol', 'Heartland', 'Lowland', 'Overseas',
] as const;

/** Suffix of a subsidiary's name: `<parent name> - <qualifier>`. */
export const SUBSIDIARY_QUALIFIERS = [
  'EMEA', 'APAC', 'North America', 'LATAM', 'Germany', 'France', 'UK', 'Canada', 'Japan', 'Australia',
  'Research', 'Services', 'Retail Division', 'Public Sector', 'Digital',
] as const;

/** Accounts of the demo organization whose names exercise filters, sorting and CSV escaping. */
export const SPECIAL_ACCOUNT_NAMES = [
  'ACME Widgets', 'acme widgets', 'Acme Widgets', '100% Natural Foods', 'Under_Score Analytics', 'Back\\Slash Ventures',
  "O'Reilly & Daughters", 'Crème Brûlée Bakery', 'Müller Präzision GmbH', "Société Lumière d'Études", '50%_Off\\Deals',
  "Zoë's Café",
] as const;

export interface Industry {
  name: string;
  sic: string;
  naics: string;
}

export const INDUSTRIES: readonly Industry[] = [
  { name: 'Software', sic: '7372', naics: '511210' },
  { name: 'Healthcare', sic: '8062', naics: '622110' },
  { name: 'Financial Services', sic: '6021', naics: '522110' },
  { name: 'Manufacturing', sic: '3599', naics: '332710' },
  { name: 'Retail', sic: '5311', naics: '455110' },
  { name: 'Transportation & Logistics', sic: '4213', naics: '484121' },
  { name: 'Education', sic: '8221', naics: '611310' },
  { name: 'Energy & Utilities', sic: '4911', naics: '221118' },
  { name: 'Telecommunications', sic: '4813', naics: '517111' },
  { name: 'Media & Entertainment', sic: '7812', naics: '512110' },
  { name: 'Biotechnology', sic: '2836', naics: '325414' },
  { name: 'Construction', sic: '1542', naics: '236220' },
  { name: 'Hospitality', sic: '7011', naics: '721110' },
  { name: 'Government', sic: '9199', naics: '921190' },
  { name: 'Insurance', sic: '6311', naics: '524113' },
  { name: 'Automotive', sic: '3711', naics: '336110' },
  { name: 'Food & Beverage', sic: '2086', naics: '312111' },
  { name: 'Real Estate', sic: '6531', naics: '531210' },
  { name: 'Aerospace & Defense', sic: '3721', naics: '336411' },
  { name: 'Professional Services', sic: '8742', naics: '541611' },
];

export const EDUCATION_INDUSTRY = 6;

/**
 * A place accounts can be in. `zip` and `phone` are patterns whose `#` become random
 * digits and `@` random capital letters; `state` is absent where addresses have none.
 */
export interface Place {
  city: string;
  state?: string;
  country: string;
  zip: string;
  phone: string;
  territory: string;
  street: 'en' | 'de' | 'fr';
}

export const PLACES: readonly Place[] = [
  { city: 'Seattle', state: 'WA', country: 'US', zip: '981##', phone: '+1 206 555 ####', territory: 'AMER - West', street: 'en' },
  { city: 'San Francisco', state: 'CA', country: 'US', zip: '941##', phone: '+1 415 555 ####', territory: 'AMER - West', street: 'en' },
  { city: 'Los Angeles', state: 'CA', country: 'US', zip: '900##', phone: '+1 213 555 ####', territory: 'AMER - West', street: 'en' },
  { city: 'San Diego', state: 'CA', country: 'US', zip: '921##', phone: '+1 619 555 ####', territory: 'AMER - West', street: 'en' },
  { city: 'Portland', state: 'OR', country: 'US', zip: '972##', phone: '+1 503 555 ####', territory: 'AMER - West', street: 'en' },
  { city: 'Phoenix', state: 'AZ', country: 'US', zip: '850##', phone: '+1 602 555 ####', territory: 'AMER - West', street: 'en' },
  { city: 'Salt Lake City', state: 'UT', country: 'US', zip: '841##', phone: '+1 801 555 ####', territory: 'AMER - West', street: 'en' },
  { city: 'Denver', state: 'CO', country: 'US', zip: '802##', phone: '+1 303 555 ####', territory: 'AMER - Central', street: 'en' },
  { city: 'Austin', state: 'TX', country: 'US', zip: '787##', phone: '+1 512 555 ####', territory: 'AMER - Central', street: 'en' },
  { city: 'Dallas', state: 'TX', country: 'US', zip: '752##', phone: '+1 214 555 ####', territory: 'AMER - Central', street: 'en' },
  { city: 'Houston', state: 'TX', country: 'US', zip: '770##', phone: '+1 713 555 ####', territory: 'AMER - Central', street: 'en' },
  { city: 'Chicago', state: 'IL', country: 'US', zip: '606##', phone: '+1 312 555 ####', territory: 'AMER - Central', street: 'en' },
  { city: 'Minneapolis', state: 'MN', country: 'US', zip: '554##', phone: '+1 612 555 ####', territory: 'AMER - Central', street: 'en' },
  { city: 'Nashville', state: 'TN', country: 'US', zip: '372##', phone: '+1 615 555 ####', territory: 'AMER - Central', street: 'en' },
  { city: 'New York', state: 'NY', country: 'US', zip: '100##', phone: '+1 212 555 ####', territory: 'AMER - East', street: 'en' },
  { city: 'Boston', state: 'MA', country: 'US', zip: '021##', phone: '+1 617 555 ####', territory: 'AMER - East', street: 'en' },
  { city: 'Atlanta', state: 'GA', country: 'US', zip: '303##', phone: '+1 404 555 ####', territory: 'AMER - East', street: 'en' },
  { city: 'Miami', state: 'FL', country: 'US', zip: '331##', phone: '+1 305 555 ####', territory: 'AMER - East', street: 'en' },
  { city: 'Raleigh', state: 'NC', country: 'US', zip: '276##', phone: '+1 919 555 ####', territory: 'AMER - East', street: 'en' },
  { city: 'Pittsburgh', state: 'PA', country: 'US', zip: '152##', phone: '+1 412 555 ####', territory: 'AMER - East', street: 'en' },
  { city: 'Columbus', state: 'OH', country: 'US', zip: '432##', phone: '+1 614 555 ####', territory: 'AMER - East', street: 'en' },
  { city: 'Toronto', state: 'ON', country: 'CA', zip: 'M5V #@#', phone: '+1 416 555 ####', territory: 'AMER - Canada', street: 'en' },
  { city: 'Vancouver', state: 'BC', country: 'CA', zip: 'V6B #@#', phone: '+1 604 555 ####', territory: 'AMER - Canada', street: 'en' },
  { city: 'Montréal', state: 'QC', country: 'CA', zip: 'H3B #@#', phone: '+1 514 555 ####', territory: 'AMER - Canada', street: 'fr' },
  { city: 'London', state: 'England', country: 'GB', zip: 'EC1A #@@', phone: '+44 20 7946 ####', territory: 'EMEA - UK&I', street: 'en' },
  { city: 'Manchester', state: 'England', country: 'GB', zip: 'M1 #@@', phone: '+44 161 496 ####', territory: 'EMEA - UK&I', street: 'en' },
  { city: 'Edinburgh', state: 'Scotland', country: 'GB', zip: 'EH1 #@@', phone: '+44 131 496 ####', territory: 'EMEA - UK&I', street: 'en' },
  { city: 'Dublin', country: 'IE', zip: 'D02 @###', phone: '+353 1 555 ####', territory: 'EMEA - UK&I', street: 'en' },
  { city: 'München', state: 'Bayern', country: 'DE', zip: '803##', phone: '+49 89 5555 ####', territory: 'EMEA - DACH', street: 'de' },
  { city: 'Berlin', state: 'Berlin', country: 'DE', zip: '101##', phone: '+49 30 5555 ####', territory: 'EMEA - DACH', street: 'de' },
  { city: 'Düsseldorf', state: 'Nordrhein-Westfalen', country: 'DE', zip: '402##', phone: '+49 211 5555 ###', territory: 'EMEA - DACH', street: 'de' },
  { city: 'Zürich', state: 'ZH', country: 'CH', zip: '80##', phone: '+41 44 555 ## ##', territory: 'EMEA - DACH', street: 'de' },
  { city: 'Paris', state: 'Île-de-France', country: 'FR', zip: '750##', phone: '+33 1 55 55 ## ##', territory: 'EMEA - Southern Europe', street: 'fr' },
  { city: 'Lyon', state: 'Auvergne-Rhône-Alpes', country: 'FR', zip: '690##', phone: '+33 4 55 55 ## ##', territory: 'EMEA - Southern Europe', street: 'fr' },
  { city: 'Amsterdam', state: 'Noord-Holland', country: 'NL', zip: '10## @@', phone: '+31 20 555 ####', territory: 'EMEA - Benelux', street: 'en' },
  { city: 'Sydney', state: 'NSW', country: 'AU', zip: '2###', phone: '+61 2 5550 ####', territory: 'APAC - ANZ', street: 'en' },
  { city: 'Melbourne', state: 'VIC', country: 'AU', zip: '3###', phone: '+61 3 5550 ####', territory: 'APAC - ANZ', street: 'en' },
  { city: 'Singapore', country: 'SG', zip: '0#####', phone: '+65 6555 ####', territory: 'APAC - Asia', street: 'en' },
  { city: 'Tokyo', state: 'Tokyo', country: 'JP', zip: '100-####', phone: '+81 3 5555 ####', territory: 'APAC - Asia', street: 'en' },
  { city: 'Bengaluru', state: 'Karnataka', country: 'IN', zip: '560###', phone: '+91 80 5555 ####', territory: 'APAC - Asia', street: 'en' },
  { city: 'São Paulo', state: 'SP', country: 'BR', zip: '01###-###', phone: '+55 11 5555 ####', territory: 'LATAM', street: 'en' },
  { city: 'Ciudad de México', state: 'CDMX', country: 'MX', zip: '06###', phone: '+52 55 5555 ####', territory: 'LATAM', street: 'en' },
];

export const STREET_NAMES = [
  'Main', 'Oak', 'Pine', 'Maple', 'Cedar', 'Elm', 'Washington', 'Lake', 'Hill', 'Market',
  'Mission', 'Harbor', 'Park', 'Broadway', 'Sunset', 'River', 'Spring', 'Church', 'Union', 'Highland',
] as const;
export const STREET_SUFFIXES = ['Street', 'Avenue', 'Boulevard', 'Road', 'Way', 'Drive', 'Lane', 'Parkway'] as const;
export const GERMAN_STREETS = ['Hauptstraße', 'Bahnhofstraße', 'Schillerstraße', 'Goethestraße', 'Lindenallee', 'Marktplatz', 'Königsweg'] as const;
export const FRENCH_STREETS = ['rue de la Paix', 'avenue Victor Hugo', 'boulevard Haussmann', 'rue du Commerce', 'quai de Bercy', 'rue Sainte-Catherine'] as const;

export const FIRST_NAMES = [
  'James', 'Mary', 'Robert', 'Patricia', 'Michael', 'Jennifer', 'David', 'Linda', 'William', 'Elizabeth',
  'Richard', 'Barbara', 'Joseph', 'Susan', 'Thomas', 'Jessica', 'Daniel', 'Sarah', 'Matthew', 'Karen',
  'Anthony', 'Nancy', 'Mark', 'Lisa', 'Steven', 'Priya', 'Andrew', 'Emily', 'Kevin', 'Michelle',
  'Brian', 'Amanda', 'Wei', 'Mei', 'Hiroshi', 'Yuki', 'Arjun', 'Ananya', 'Carlos', 'Lucía',
  'José', 'Renée', 'Zoë', 'Jürgen', 'Siobhán', 'François', 'Ingrid', 'Lars', 'Fatima', 'Omar',
  'Chloé', 'Mateo', 'Aisha', 'Noah', 'Olivia', 'Liam', 'Emma', 'Ethan', 'Sofia', 'Lucas',
] as const;

export const LAST_NAMES = [
  'Smith', 'Johnson', 'Williams', 'Brown', 'Jones', 'Garcia', 'Miller', 'Davis', 'Rodriguez', 'Martinez',
  'Hernandez', 'Lopez', 'Gonzalez', 'Wilson', 'Anderson', 'Thomas', 'Taylor', 'Moore', 'Jackson', 'Martin',
  'Lee', 'Perez', 'Thompson', 'White', 'Harris', 'Sanchez', 'Clark', 'Ramirez', 'Lewis', 'Robinson',
  'Walker', 'Young', 'Allen', 'King', 'Wright', 'Scott', 'Nguyen', 'Patel', 'Kim', 'Chen',
  'Tanaka', 'Suzuki', 'Singh', 'Kowalski', "O'Connor", "D'Angelo", 'Müller', 'Schäfer', 'Dubois', 'Lefèvre',
  'Núñez', 'Johansson', 'Okafor', 'Haddad', 'Rossi', 'Bianchi', 'Novak', 'Ivanova', 'Fischer', 'Murphy',
] as const;

export const SALES_TITLES = [
  'Account Executive', 'Senior Account Executive', 'Enterprise Account Executive', 'Strategic Account Manager',
  'Regional Sales Director', 'Sales Development Representative', 'VP of Sales',
] as const;
export const SUCCESS_TITLES = ['Customer Success Manager', 'Solutions Engineer', 'Renewals Manager', 'Technical Account Manager'] as const;
export const SALES_DIVISIONS = ['Enterprise', 'Mid-Market', 'Commercial', 'Public Sector'] as const;
export const ACCOUNT_DIVISIONS = ['Enterprise', 'Mid-Market', 'Commercial', 'Public Sector', 'Enterprise; Public Sector', 'Mid-Market; Commercial'] as const;

export const OPPORTUNITY_TYPES = ['New Business', 'Expansion', 'Renewal'] as const;
export const OPEN_STAGES: ReadonlyArray<readonly [string, number]> = [['Prospecting', 10], ['Qualification', 25], ['Proposal', 50], ['Negotiation', 75]];
