-- Which generation of the journey read model readers use. The projector
-- creates each generation's tables (journeys_g<N>, journey_state_g<N>;
-- DDL in projector/journeytables.go) and `contrack admin rebuild-journeys`
-- builds generation N+1 from the topics beside the live one, then adds its
-- row here: readers and the projector move to the highest generation.
CREATE TABLE IF NOT EXISTS journey_generations (
    generation UInt32,
    at         DateTime
) ENGINE = MergeTree() ORDER BY generation;
