//! The parameters of the v3 geospatial types, `geometry(C)` and `geography(C, A)`.
//!
//! Both may be written bare (`geometry`, `geography`) or with only some parameters; the spec fills
//! in the rest: CRS `OGC:CRS84` and, for geography, the edge algorithm `spherical`. The text is
//! kept as written so a schema we re-render says what the file said, while equality is by
//! meaning: Iceberg Java (`Types.GeometryType` / `GeographyType` equals) treats `geometry` and
//! `geometry(OGC:CRS84)` as the same type and compares CRS names case-insensitively, so a
//! change between the default and the explicit form is no type change and needs no promotion.

use std::hash::{Hash, Hasher};

/// The CRS both geospatial types mean when none is written.
pub const DEFAULT_CRS: &str = "OGC:CRS84";

/// The edge-interpolation algorithm a geography means when none is written.
pub const DEFAULT_EDGE_ALGORITHM: &str = "spherical";

/// The spec's edge-interpolation algorithms ("Edge-Interpolation Algorithm"), matched
/// case-insensitively as Java's `EdgeAlgorithm.fromName` does. CRS strings, by contrast, are
/// free-form.
pub const EDGE_ALGORITHMS: [&str; 5] = ["spherical", "vincenty", "thomas", "andoyer", "karney"];

/// `geometry`'s CRS as written, `None` for the bare form.
#[derive(Debug, Clone)]
pub struct GeometryParameters(Option<String>);

/// `geography`'s parameters as written (`C` or `C, A`), `None` for the bare form.
#[derive(Debug, Clone)]
pub struct GeographyParameters(Option<String>);

/// Parameters no reader accepts.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum InvalidParameters {
    /// Present but empty (`geometry()`, `geography(, karney)`): names no CRS or algorithm; Java
    /// rejects it too.
    #[error("the parentheses name no CRS or edge algorithm (write the bare type for the defaults)")]
    Empty,
    /// A geography edge algorithm the spec does not define (Java's `EdgeAlgorithm.fromName`
    /// refuses it too).
    #[error(
        "`{0}` is not an edge algorithm: the spec defines spherical, vincenty, thomas, andoyer and karney"
    )]
    UnknownAlgorithm(String),
}

fn written(text: Option<&str>) -> Result<Option<String>, InvalidParameters> {
    match text.map(str::trim) {
        None => Ok(None),
        Some("") => Err(InvalidParameters::Empty),
        Some(text) => Ok(Some(text.to_string())),
    }
}

impl GeometryParameters {
    /// From the text between the parentheses (`None` when there are none).
    pub fn from_written(text: Option<&str>) -> Result<GeometryParameters, InvalidParameters> {
        written(text).map(GeometryParameters)
    }

    pub fn written(&self) -> Option<&str> {
        self.0.as_deref()
    }

    pub fn crs(&self) -> &str {
        self.0.as_deref().unwrap_or(DEFAULT_CRS)
    }

    fn meaning(&self) -> String {
        self.crs().to_ascii_lowercase()
    }
}

impl GeographyParameters {
    /// From the text between the parentheses (`None` when there are none).
    pub fn from_written(text: Option<&str>) -> Result<GeographyParameters, InvalidParameters> {
        let params = written(text).map(GeographyParameters)?;
        let algorithm = params.algorithm();
        if params.crs().is_empty() || algorithm.is_empty() {
            return Err(InvalidParameters::Empty);
        }
        if !EDGE_ALGORITHMS
            .iter()
            .any(|known| known.eq_ignore_ascii_case(algorithm))
        {
            return Err(InvalidParameters::UnknownAlgorithm(algorithm.to_string()));
        }
        Ok(params)
    }

    pub fn written(&self) -> Option<&str> {
        self.0.as_deref()
    }

    /// Java splits at the first comma: a CRS name never holds one.
    fn parts(&self) -> (&str, Option<&str>) {
        match self.0.as_deref() {
            None => (DEFAULT_CRS, None),
            Some(text) => match text.split_once(',') {
                Some((crs, algorithm)) => (crs.trim(), Some(algorithm.trim())),
                None => (text, None),
            },
        }
    }

    pub fn crs(&self) -> &str {
        self.parts().0
    }

    pub fn algorithm(&self) -> &str {
        self.parts().1.unwrap_or(DEFAULT_EDGE_ALGORITHM)
    }

    fn meaning(&self) -> (String, String) {
        (
            self.crs().to_ascii_lowercase(),
            self.algorithm().to_ascii_lowercase(),
        )
    }
}

impl PartialEq for GeometryParameters {
    fn eq(&self, other: &Self) -> bool {
        self.meaning() == other.meaning()
    }
}

impl Eq for GeometryParameters {}

impl Hash for GeometryParameters {
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.meaning().hash(state);
    }
}

impl PartialEq for GeographyParameters {
    fn eq(&self, other: &Self) -> bool {
        self.meaning() == other.meaning()
    }
}

impl Eq for GeographyParameters {}

impl Hash for GeographyParameters {
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.meaning().hash(state);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn geometry(text: Option<&str>) -> GeometryParameters {
        GeometryParameters::from_written(text).unwrap()
    }

    fn geography(text: Option<&str>) -> GeographyParameters {
        GeographyParameters::from_written(text).unwrap()
    }

    #[test]
    fn bare_forms_mean_the_spec_defaults() {
        assert_eq!(geometry(None).crs(), "OGC:CRS84");
        assert_eq!(geography(None).crs(), "OGC:CRS84");
        assert_eq!(geography(None).algorithm(), "spherical");
        assert_eq!(geography(Some("srid:4326")).algorithm(), "spherical");
        assert_eq!(geography(Some(" srid:4326 , karney ")).crs(), "srid:4326");
        assert_eq!(geography(Some("srid:4326 , karney")).algorithm(), "karney");
    }

    #[test]
    fn the_default_and_the_explicit_form_are_equal_but_written_apart() {
        assert_eq!(geometry(None), geometry(Some("OGC:CRS84")));
        assert_eq!(geometry(None), geometry(Some("ogc:crs84")));
        assert_eq!(geometry(None).written(), None);
        assert_eq!(geometry(Some("OGC:CRS84")).written(), Some("OGC:CRS84"));
        assert_eq!(geography(None), geography(Some("OGC:CRS84")));
        assert_eq!(geography(None), geography(Some("OGC:CRS84, spherical")));
        assert_eq!(
            geography(Some("srid:4326")),
            geography(Some("SRID:4326,Spherical"))
        );
    }

    #[test]
    fn other_parameters_are_other_types() {
        assert_ne!(geometry(None), geometry(Some("srid:4326")));
        assert_ne!(geography(None), geography(Some("OGC:CRS84, karney")));
        assert_ne!(geography(None), geography(Some("srid:4326, spherical")));
    }

    #[test]
    fn empty_parameters_are_rejected() {
        assert_eq!(
            GeometryParameters::from_written(Some(" ")),
            Err(InvalidParameters::Empty)
        );
        assert_eq!(
            GeographyParameters::from_written(Some("")),
            Err(InvalidParameters::Empty)
        );
        assert_eq!(
            GeographyParameters::from_written(Some(", spherical")),
            Err(InvalidParameters::Empty)
        );
        assert_eq!(
            GeographyParameters::from_written(Some("srid:4326,")),
            Err(InvalidParameters::Empty)
        );
    }

    #[test]
    fn only_the_specs_edge_algorithms_are_accepted_in_any_case() {
        for algorithm in [
            "spherical",
            "vincenty",
            "thomas",
            "andoyer",
            "karney",
            "Karney",
        ] {
            let written = format!("srid:4326, {algorithm}");
            assert_eq!(geography(Some(&written)).algorithm(), algorithm);
        }
        for algorithm in ["planar", "geodesic", "karney2"] {
            assert_eq!(
                GeographyParameters::from_written(Some(&format!("OGC:CRS84, {algorithm}"))),
                Err(InvalidParameters::UnknownAlgorithm(algorithm.into()))
            );
        }
    }

    #[test]
    fn crs_strings_stay_free_form() {
        for crs in ["EPSG:4326", "projjson:my_crs", "srid:0", "anything at all"] {
            assert_eq!(geometry(Some(crs)).crs(), crs);
            assert_eq!(geography(Some(crs)).crs(), crs);
        }
    }
}
